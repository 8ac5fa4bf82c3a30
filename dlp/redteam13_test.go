package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// A U+FFFD in a pattern also matches an invalid byte, so a text need not
// hold its UTF-8 bytes: the must-literal check skipped "tok\xff12345678",
// which the regex matches (and a scan without the check redacted). Near
// misses: the valid spelling, and a text the regex does not match.
func TestRedTeam13_MustLiteralWithReplacementRune(t *testing.T) {
	s, err := dlp.New([]dlp.Pattern{{Name: "fffd", Regex: `tok\x{FFFD}[0-9]{8}`}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"a tok\xff12345678 b":     true,
		"a tok\xc0\xaf12345678 b": false, // two invalid bytes are two U+FFFD
		"a tok\uFFFD12345678 b":   true,
		"a tok12345678 b":         false,
		"a tok\xff1234567 b":      false,
	} {
		out, found := s.Redact(text)
		if got := len(found) > 0; got != want {
			t.Errorf("%q: redacted %v (%q), want %v", text, got, out, want)
		}
		if want && strings.Contains(out, "12345678") {
			t.Errorf("%q: the secret is still in %q", text, out)
		}
	}
}
