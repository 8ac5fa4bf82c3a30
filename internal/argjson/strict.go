package argjson

import (
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// The name checks of DecodeStrict.

// foldable reports whether k has a byte that case folding could match to
// another: an upper-case ASCII letter or any non-ASCII byte. Objects whose
// names have none are never checked further.
func foldable(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// foldedNames reports whether two names of m are equal under case folding.
func foldedNames(m map[string]any) bool {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	return jcs.FoldedPair(names)
}
