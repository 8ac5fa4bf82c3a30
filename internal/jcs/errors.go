package jcs

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinels callers branch on with errors.Is. Every error of this package
// wraps ErrInvalid; the other two name the reason when it is one of theirs.
var (
	// ErrInvalid marks input that has no canonical form under the rule:
	// not I-JSON (RFC 7493) as RFC 8785 requires, nested deeper than
	// [MaxDepth], or one of the refusals below.
	ErrInvalid = errors.New("jcs: not canonicalizable JSON")
	// ErrInexactNumber marks a number whose RFC 8785 form (an IEEE-754
	// double) denotes another value, refused under [Exact].
	ErrInexactNumber = errors.New("jcs: a number has more precision or range than an IEEE-754 double (RFC 8785) keeps")
	// ErrFoldedNames marks an object with two member names that are equal
	// under Unicode simple case folding (as encoding/json matches names:
	// "path" and "PATH", "k" and U+212A KELVIN SIGN, "s" and U+017F LONG S).
	// Readers disagree on which member such an object means.
	ErrFoldedNames = errors.New("jcs: member names differ only in letter case")
)

// Error is a refusal with the byte offset where it was found. It never
// quotes values; it quotes member names, cut to 40 bytes.
type Error struct {
	msg  string
	at   int
	kind error // ErrInexactNumber, ErrFoldedNames or nil
}

func (e *Error) Error() string {
	if e.at < 0 {
		return ErrInvalid.Error() + ": " + e.msg
	}
	return ErrInvalid.Error() + ": " + e.msg + " at byte " + strconv.Itoa(e.at)
}

// Is reports ErrInvalid and the kind of the refusal.
func (e *Error) Is(target error) bool {
	return target == ErrInvalid || (e.kind != nil && target == e.kind)
}

func (c *Canonicalizer) foldFail(a, b []byte) error {
	return &Error{msg: fmt.Sprintf("member names %q and %q differ only in letter case (Unicode case folding)", cut(a), cut(b)), at: c.pos, kind: ErrFoldedNames}
}

func cut(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}
