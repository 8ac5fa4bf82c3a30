package runes_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/runes"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                  "plain",
		"to\u202Eevil":           `to\u202Eevil`,
		"a\u200Bb":               `a\u200Bb`,
		"tag\U000E0041":          `tag\U000E0041`,
		"caf\u00e9 \u4e16\u754c": "caf\u00e9 \u4e16\u754c",
	} {
		if got := runes.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
