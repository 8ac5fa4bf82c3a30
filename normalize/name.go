package normalize

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/gatehouse-dev/gatehouse/internal/runes"
)

// maxRounds bounds the NFKC / fold / clean-up loop in [Name]. Two rounds
// reach the fixed point for every input the fuzz tests have found; the bound
// only guarantees termination.
const maxRounds = 4

// folders pools case folders: a cases.Caser is not safe for concurrent use.
var folders = sync.Pool{New: func() any { c := cases.Fold(); return &c }}

// Name returns the canonical form of a tool or method name (AIP §4.1):
// NFKC, full case folding, removal of every non-printable and invisible
// rune (see the package documentation), white space trimmed at both ends.
// The result is a fixed point: Name(Name(s)) == Name(s).
//
// An ASCII name that is already canonical is returned as is, without
// allocating.
func Name(s string) string {
	if asciiCanonical(s) {
		return s
	}
	if isASCII(s) {
		return asciiName(s)
	}
	for range maxRounds {
		t := nameRound(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

// asciiCanonical reports whether s is printable ASCII without upper case
// letters and without leading or trailing space: exactly the ASCII strings
// that Name leaves unchanged.
func asciiCanonical(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiName handles ASCII input that needs work: lower case, drop controls,
// trim. NFKC and case folding are the identity on the remaining ASCII.
func asciiName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + ('a' - 'A'))
		case c < 0x20 || c == 0x7f:
			// control: removed
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimFunc(b.String(), unicode.IsSpace)
}

// nameRound is one pass of the general algorithm.
func nameRound(s string) string {
	s = strings.Map(keepRune, foldNFKC(s))
	return strings.TrimFunc(s, unicode.IsSpace)
}

// keepRune returns r when it is kept in a name and -1 when it is removed.
// strings.Map passes invalid UTF-8 as utf8.RuneError, which is removed.
func keepRune(r rune) rune {
	if Invisible(r) {
		return -1
	}
	return r
}

// Invisible reports whether Name removes r: r is not printable (controls,
// format characters, private use, unassigned, surrogates, separators other
// than U+0020, U+FFFD standing for invalid UTF-8) or is a default-ignorable
// rune that renders as nothing (variation selectors, combining grapheme
// joiner, Hangul fillers).
func Invisible(r rune) bool { return runes.Invisible(r) }

// foldNFKC applies NFKC, full case folding and NFKC again.
func foldNFKC(s string) string {
	s = norm.NFKC.String(s)
	f := folders.Get().(*cases.Caser)
	s = f.String(s)
	f.Reset()
	folders.Put(f)
	return norm.NFKC.String(s)
}
