package glob_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/glob"
)

// Match agrees with the regexp a pattern stands for on a corpus of
// patterns and names, near misses included.
func TestMatchAgreesWithRegexp(t *testing.T) {
	patterns := []string{"", "*", "**", "read_*", "*_file", "a*b*c", "deploy", "qa-*", "*é*", "x*", "*x", "a**b"}
	names := []string{"", "read_file", "read_", "rea", "write_file", "abc", "aXbYc", "acb", "deploy", "deploy2", "qa-1", "qa", "café", "x", "xx", "ab", "a\xffb"}
	for _, p := range patterns {
		parts := strings.Split(p, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re := regexp.MustCompile(`^(?s:` + strings.Join(parts, ".*") + `)$`)
		for _, n := range names {
			if got, want := glob.Match(p, n), re.MatchString(n); got != want {
				t.Errorf("Match(%q, %q) = %v, want %v", p, n, got, want)
			}
		}
	}
}

func FuzzMatchAgreesWithRegexp(f *testing.F) {
	f.Add("a*b", "axxb")
	f.Add("*", "")
	f.Fuzz(func(t *testing.T, p, n string) {
		if len(p) > 64 || len(n) > 256 {
			return
		}
		parts := strings.Split(p, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re, err := regexp.Compile(`^(?s:` + strings.Join(parts, ".*") + `)$`)
		if err != nil {
			return
		}
		if got, want := glob.Match(p, n), re.MatchString(n); got != want {
			t.Fatalf("Match(%q, %q) = %v, regexp %v", p, n, got, want)
		}
	})
}
