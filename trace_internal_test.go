package gatehouse

import (
	"context"
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

type otherKey struct{ n int }

// TestContextTypes: the guard's own context types (traceCtx, observed)
// answer every lookup as context.WithValue would, nested in any order
// with other values and with cancellation: each key is found at its
// innermost setting, other keys pass through, Done and Err are the
// parent's.
func TestContextTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 17))
	for range 300 {
		parent, cancel := context.WithCancel(context.Background())
		got, ref := context.Context(parent), context.Context(parent)
		var obs []*observed
		for range 1 + rng.IntN(6) {
			switch rng.IntN(3) {
			case 0:
				tc := TraceContext{TraceID: [16]byte{0: byte(rng.IntN(255) + 1)}, SpanID: [8]byte{7: 1}, Flags: byte(rng.IntN(2))}
				if rng.IntN(5) == 0 {
					tc.SpanID = [8]byte{} // invalid: ignored
				}
				got = ContextWithTrace(got, tc)
				if tc.Valid() {
					ref = context.WithValue(ref, traceKey{}, &tc)
				}
			case 1:
				o := &observed{Context: got}
				obs = append(obs, o)
				got, ref = o, context.WithValue(ref, observedKey{}, o)
			default:
				k, v := otherKey{rng.IntN(3)}, rng.IntN(100)
				got, ref = context.WithValue(got, k, v), context.WithValue(ref, k, v)
			}
		}
		gt, gok := TraceFromContext(got)
		rt, rok := ref.Value(traceKey{}).(*TraceContext)
		if gok != rok || (rok && gt != *rt) {
			t.Fatalf("trace %v %v, want %v %v", gt, gok, rt, rok)
		}
		if observing(got) != observing(ref) {
			t.Fatal("observed differs")
		}
		for n := range 3 {
			if got.Value(otherKey{n}) != ref.Value(otherKey{n}) {
				t.Fatalf("key %d: %v, want %v", n, got.Value(otherKey{n}), ref.Value(otherKey{n}))
			}
		}
		cancel()
		if got.Done() != parent.Done() || got.Err() != context.Canceled {
			t.Fatal("cancellation does not pass through")
		}
	}
}
