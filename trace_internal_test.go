package gatehouse

import (
	"math/rand/v2"
	"testing"
)

// TestHexIDs: the ids written into audit events, made in one allocation,
// equal TraceIDString and SpanIDString, for random ids and the extremes.
func TestHexIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 13))
	cases := []TraceContext{{}, {TraceID: [16]byte{15: 1}, SpanID: [8]byte{7: 1}}}
	var ff TraceContext
	for i := range ff.TraceID {
		ff.TraceID[i] = 0xff
	}
	for i := range ff.SpanID {
		ff.SpanID[i] = 0xff
	}
	cases = append(cases, ff)
	for range 1000 {
		var c TraceContext
		for i := range c.TraceID {
			c.TraceID[i] = byte(rng.IntN(256))
		}
		for i := range c.SpanID {
			c.SpanID[i] = byte(rng.IntN(256))
		}
		cases = append(cases, c)
	}
	for _, c := range cases {
		tr, sp := c.hexIDs()
		if tr != c.TraceIDString() || sp != c.SpanIDString() {
			t.Fatalf("hexIDs(%x, %x) = %s, %s; want %s, %s", c.TraceID, c.SpanID, tr, sp, c.TraceIDString(), c.SpanIDString())
		}
	}
}
