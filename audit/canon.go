package audit

import "github.com/gatehouse-dev/gatehouse/internal/jcs"

// rule is the canonical form of FORMAT.md: RFC 8785 with a number a double
// does not hold exactly kept as written ("Numbers"), and member names equal
// under case folding accepted, because a log records what was received,
// including calls refused for having such names.
var rule = jcs.Rule{Numbers: jcs.AsWritten, AllowFoldedNames: true}

// canon is audit's reusable canonicalizer; after transform, out holds the
// canonical bytes and mem the sorted top-level members. Not safe for
// concurrent use.
type canon struct {
	c   *jcs.Canonicalizer
	out []byte
	mem []jcs.Member
}

func (c *canon) transform(in []byte) error {
	if c.c == nil {
		c.c = jcs.NewCanonicalizer(rule)
	}
	out, err := c.c.Transform(in)
	c.out, c.mem = out, c.c.Members()
	if err != nil {
		return err
	}
	return nil
}

func appendString(dst, s []byte) []byte { return jcs.AppendString(dst, s) }
