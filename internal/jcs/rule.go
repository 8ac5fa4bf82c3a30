package jcs

// Numbers is the rule for a number whose RFC 8785 form, the shortest
// ECMAScript form of the nearest IEEE-754 double, denotes another value
// (12345678901234567891 would become 12345678901234567000, and 1e400 has no
// double at all). Each caller chooses one explicitly; there is no default
// rounding, because rounding lets two different values share one form.
type Numbers uint8

const (
	// Exact refuses such a number ([ErrInexactNumber]). For everything that
	// decides whether two calls are the same or what a human approved:
	// approval and consent action hashes, consent proofs, the elicitation
	// state and the loop fingerprint. What Exact accepts has the same form
	// under AsWritten.
	Exact Numbers = iota
	// AsWritten keeps such a number as its token was written, so two
	// numbers of different values never share a form, and no number is
	// refused. For records that must keep what was received (audit lines).
	AsWritten
)

// Rule is what a caller chooses. The zero Rule is the strict one: exact
// numbers, no member names equal under case folding.
type Rule struct {
	Numbers Numbers
	// AllowFoldedNames accepts objects with member names equal under case
	// folding (names equal as bytes are always refused, RFC 8785 §3.1). Only
	// for records of what was received, such as an audit line of a call
	// that was refused for this very reason; never for a value that is
	// hashed, shown or approved.
	AllowFoldedNames bool
}

// Strict is the zero Rule, named for readability at call sites.
var Strict = Rule{}

// Transform returns the canonical form of the JSON text in under r, in a
// new slice. For repeated use, a [Canonicalizer] allocates nothing.
func Transform(in []byte, r Rule) ([]byte, error) {
	c := Canonicalizer{rule: r}
	out, err := c.Transform(in)
	if err != nil {
		return nil, err
	}
	return out, nil
}
