package audit

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

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

var canons = sync.Pool{New: func() any { return new(canon) }}

// Canonical returns raw, one JSON value, in the canonical form a log line
// holds it in (FORMAT.md: RFC 8785, numbers a double does not hold kept as
// written), or an error wrapping [ErrArgs] when the log cannot hold it.
// Redacting these bytes instead of raw makes a scan see every value as
// the log will show it: 4.111111111111111e15 is logged as
// 4111111111111111. It is safe for concurrent use.
func Canonical(raw []byte) ([]byte, error) {
	c := canons.Get().(*canon)
	defer canons.Put(c)
	if err := c.transform(raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArgs, err)
	}
	return bytes.Clone(c.out), nil
}
