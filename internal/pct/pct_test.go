package pct_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/pct"
)

func TestDecode(t *testing.T) {
	for in, want := range map[string]string{
		"":           "",
		"plain":      "plain",
		"%2e%2E%2f":  "../",
		"a%20b":      "a b",
		"%":          "%",
		"%2":         "%2",
		"%zz%41":     "%zzA",
		"100%":       "100%",
		"%252e":      "%2e", // one layer only
		"%C3%A9":     "é",
		"x%2":        "x%2",
		"%%41":       "%A",
		"a+b":        "a+b", // no form decoding
		"%e2%80%8b.": "\u200b.",
	} {
		if got := pct.Decode(in); got != want {
			t.Errorf("Decode(%q) = %q, want %q", in, got, want)
		}
	}
}
