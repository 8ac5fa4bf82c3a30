package mcpredact

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// longPrefix is how much of one word a value is scanned by under its
// name: the generic rules' quoted values end within 128 or 256 bytes,
// and a password or key longer than that under its name ({"password":
// "<200 characters>"}, "pw: <300 characters>") matched no rule and
// reached the client whole (red team rtu).
const longPrefix = 120

// longValue returns v's first longPrefix bytes when v is one word longer
// than that and not part of a run of joined values: the rules decide on
// them, and a value whose prefix they redact is redacted whole (the rest
// of the word is not written back).
func longValue(v string, joined bool) string {
	if joined || len(v) <= longPrefix || strings.ContainsAny(v, " \t\n\r") {
		return v
	}
	n := longPrefix
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return v[:n]
}

// A text rule's value ends at its longest match (512 bytes unquoted,
// 1000 for a bearer token): a longer key in text ("X-Api-Key: <600
// characters>", "... CLIENT_SECRET=<600 characters> ...") had its head
// redacted and its tail sent (red team rtu). cutTails removes the rest of
// the word after a long match that stops inside it, before the text is
// scanned again.

// longMatch is the length from which a match that stops inside a word
// was cut by its rule's longest match, not by the word's end.
const longMatch = 256

// cutTails returns s without the rest of each word a long finding stops
// inside, or s itself.
func cutTails(s string, fs []dlp.Finding) string {
	var cuts []dlp.Range
	for _, f := range fs {
		for _, r := range f.Ranges {
			if r.End-r.Start < longMatch || r.End >= len(s) || !wordByte(s[r.End-1]) || !wordByte(s[r.End]) {
				continue
			}
			e := r.End
			for e < len(s) && wordByte(s[e]) {
				e++
			}
			cuts = append(cuts, dlp.Range{Start: r.End, End: e})
		}
	}
	if len(cuts) == 0 {
		return s
	}
	slices.SortFunc(cuts, func(a, b dlp.Range) int { return a.Start - b.Start })
	var b strings.Builder
	at := 0
	for _, c := range cuts {
		if c.Start < at {
			c.Start = at
		}
		if c.Start < c.End {
			b.WriteString(s[at:c.Start])
			at = c.End
		}
	}
	b.WriteString(s[at:])
	return b.String()
}

// wordByte reports whether c may be inside a key or token: a letter, a
// digit, or + / = _ -.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

// wordAfterMarkers returns a credential-named value's redaction without
// the rest of any word a marker stops inside ("Bearer <1280
// characters>" under "Authorization": the rule's longest match is 1000).
func wordAfterMarkers(v string) string {
	const open = "[REDACTED:"
	var b strings.Builder
	at := 0
	for {
		i := strings.Index(v[at:], open)
		if i < 0 {
			break
		}
		j := strings.IndexByte(v[at+i:], ']')
		if j < 0 {
			break
		}
		end := at + i + j + 1
		e := end
		for e < len(v) && wordByte(v[e]) {
			e++
		}
		b.WriteString(v[at:end])
		at = e
	}
	if at == 0 {
		return v
	}
	b.WriteString(v[at:])
	return b.String()
}
