package dlp

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error [New] returns for a bad pattern is a
// [*PatternError] that wraps one of these, so callers can branch with
// errors.Is and still read which rule was wrong with errors.As.
var (
	// ErrEmptyName: a pattern has no name.
	ErrEmptyName = errors.New("dlp: empty rule name")
	// ErrBadName: a name holds control characters, invalid UTF-8 or "]",
	// or is longer than 128 bytes; it would corrupt the replacement text.
	ErrBadName = errors.New("dlp: invalid rule name")
	// ErrDuplicateName: two patterns share a name.
	ErrDuplicateName = errors.New("dlp: duplicate rule name")
	// ErrEmptyRegex: a pattern has no regex.
	ErrEmptyRegex = errors.New("dlp: empty regex")
	// ErrPatternTooLong: a regex is longer than Options.MaxPatternLength.
	ErrPatternTooLong = errors.New("dlp: regex too long")
	// ErrBadRegex: a regex does not compile (Go RE2 syntax); the error also
	// wraps the *syntax.Error.
	ErrBadRegex = errors.New("dlp: invalid regex")
	// ErrEmptyMatch: a regex matches the empty string, so it would redact
	// nothing or everything.
	ErrEmptyMatch = errors.New("dlp: regex matches the empty string")
	// ErrBadKeyword: a keyword is empty or longer than 64 bytes.
	ErrBadKeyword = errors.New("dlp: invalid keyword")
	// ErrBadEntropy: MinEntropy is negative, NaN or above 8 bits per byte.
	ErrBadEntropy = errors.New("dlp: invalid minimum entropy")

	// ErrBadOptions: an [Options] field is out of range.
	ErrBadOptions = errors.New("dlp: invalid options")
	// ErrInvalidJSON: [Scanner.RedactJSON] was given a document that is not
	// valid JSON. Nothing is returned: the caller must not forward the input.
	ErrInvalidJSON = errors.New("dlp: invalid json")
	// ErrClosed: a [Writer] was used after Close.
	ErrClosed = errors.New("dlp: writer closed")
)

// PatternError reports which pattern [New] rejected and why. Err wraps one of
// the sentinel errors above.
type PatternError struct {
	Index int    // position in the slice given to New
	Name  string // the pattern's name, possibly empty
	Err   error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("dlp: pattern %d %q: %v", e.Index, e.Name, trimPrefix(e.Err.Error()))
}

// Unwrap returns the underlying error.
func (e *PatternError) Unwrap() error { return e.Err }

func trimPrefix(s string) string {
	const p = "dlp: "
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}
