package mcpredact

import "strings"

// A password of words ("correct horse battery staple") or with a space
// in it ("Fake Pa55word!") under a password's name reached the client from
// every structured reading (a JSON member, a YAML scalar, an INI or
// properties line, a name/value pair): the rules' quoted value ends at
// white space, and the walk knew where the value ends (red team rtu). A
// value that reads as such a password is scanned with its words joined by
// a hyphen; prose a tool writes where a password would be ("see the
// vault", "not set", "stored in 1Password") holds a word of stopWords and
// is scanned as it is.

// phraseJoin returns v with its words joined by hyphens when v, under a
// password's name, may be a password with spaces; v itself otherwise.
//
// Under "Authorization" (a secret's value that starts with an HTTP
// authentication scheme: authScheme), the words after the scheme are
// joined so ("Bearer correct horse battery", red team rva).
func phraseJoin(name, v string) string {
	if name == "Authorization" {
		if sp := strings.IndexByte(v, ' '); sp > 0 && passphrase(v[sp+1:]) {
			return v[:sp] + " " + strings.Join(strings.Fields(v[sp+1:]), "-")
		}
		return v
	}
	if name != passwordName.canonical() || !passphrase(v) {
		return v
	}
	return strings.Join(strings.Fields(v), "-")
}

// passphrase reports whether v is one line of 2 to 12 words, at most 256
// bytes, none of them a word of prose (stopWords).
func passphrase(v string) bool {
	if len(v) < 8 || len(v) > 256 || !strings.ContainsAny(v, " \t") || strings.ContainsAny(v, "\n\r") {
		return false
	}
	n := 0
	var low [16]byte
	for w := range strings.FieldsSeq(v) {
		if n++; n > 12 {
			return false
		}
		w = strings.Trim(w, ".,;:!?()\"'")
		if len(w) > len(low) {
			continue // no stop word is so long
		}
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		if stopWords[string(low[:len(w)])] {
			return false
		}
	}
	return n >= 2
}

// stopWords are the words of prose a tool writes in a password's place:
// English function words, and the words of "see the vault", "not set",
// "stored elsewhere", "ask the admin", "<redacted>", and of a form's
// help text ("(min. 8 chars)", "at least 12 characters", red team rtd).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the of to in on at by for from with into onto via per as is are was were be been being
		it its this that these those there here what which who how when where why i you he she we they my your our their
		and or but not no nor none null nil n/a na set unset see ask use used using check contact refer read find get
		empty blank hidden masked redacted removed omitted same above below elsewhere stored kept managed held saved
		vault keychain keyring secret secrets password passwords env environment variable file config configured
		enter type provide please required optional default changed rotated expired disabled enabled tbd todo
		min max minimum maximum least most char chars characters digit digits letter letters symbol symbols length long e.g i.e`) {
		m[w] = true
	}
	return m
}()
