package mcpredact

import "strings"

// Spellings of YAML the look at the lines of yamlText (yamlColonLine) did
// not read, so the text went out scanned by the text rules alone (red team
// rtu): a name and its value as a flow sequence ("- [DB_PASS, ...]"), a
// complex key ("? DB_PASS\n: ..."), a key with a tag or an anchor
// ("!!str name: DB_PASS"), a member after "-" and a tab, a JSON-style
// key in a flow mapping ({"privKey":"..."}, with its colon unspaced), a
// name held by an anchor and read through an
// alias ("x: &n DB_PASS" ... "name: *n"), and lines that end in CR alone,
// NEL, LS or PS, which the parser reads as line breaks.

// yamlBreaks returns s with every line break the YAML parser reads other
// than LF (a CR not before LF, NEL, LS, PS) written as LF, padded before
// with spaces to the break's length so that every offset stays; s itself
// when it has none.
func yamlBreaks(s string) string {
	if !strings.Contains(s, "\r") && !strings.Contains(s, "\u0085") && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n'):
			b[i] = '\n'
		case b[i] == 0xc2 && i+1 < len(b) && b[i+1] == 0x85:
			b[i], b[i+1] = ' ', '\n'
		case b[i] == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9):
			b[i], b[i+1], b[i+2] = ' ', ' ', '\n'
		}
	}
	return string(b)
}

// yamlOtherLine reports whether a line of s, after its indentation and a
// sequence's "- ", is a complex key ("? ...") or a flow collection ("[...",
// "{..." with the credential's name in any member) that may name a
// credential.
func yamlOtherLine(s string) bool {
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		i := 0
		for i < len(line) {
			switch {
			case line[i] == ' ' || line[i] == '\t':
				i++
				continue
			case line[i] == '-' && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
				i += 2
				continue
			}
			break
		}
		if i == len(line) {
			continue
		}
		if c := line[i]; (c == '[' || c == '{' || c == '?' && i+1 < len(line) && line[i+1] == ' ') && mayName(line[i:]) {
			return true
		}
	}
	return false
}

// yamlProps returns a key without the tag and the anchor before it
// ("!!str name", "&k name", "!custom &k name").
func yamlProps(key string) string {
	for {
		key = strings.TrimLeft(key, " \t")
		if !strings.HasPrefix(key, "!") && !strings.HasPrefix(key, "&") {
			return key
		}
		i := strings.IndexAny(key, " \t")
		if i < 0 {
			return key
		}
		key = key[i:]
	}
}

// anchored reports whether a member's value holds an anchor ("&n
// DB_PASS"): an alias elsewhere may read it as a name.
func anchored(value string) bool {
	v := strings.TrimLeft(value, " \t")
	if strings.HasPrefix(v, "!") {
		if i := strings.IndexAny(v, " \t"); i > 0 {
			v = strings.TrimLeft(v[i:], " \t") // the tag
		}
	}
	return strings.HasPrefix(v, "&")
}

// quotedKey reports whether the colon at s[i] follows a quoted key: in a
// flow collection, YAML reads "privKey":value without a space, as JSON
// does (red team rtu).
func quotedKey(s string, i int) bool {
	return i > 0 && (s[i-1] == '"' || s[i-1] == '\'')
}
