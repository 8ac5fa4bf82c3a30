package mcpredact

import (
	"strings"
	"unicode/utf8"
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
