package audit

import (
	"math/rand/v2"
	"testing"
	"time"
)

// appendTime writes what the layout writes, for every kind of instant:
// random ones over twenty thousand years either side of the epoch, the
// edges of years 0 and 9999, sub-millisecond nanoseconds that must be
// truncated, and instants in other zones.
func TestAppendTimeMatchesLayout(t *testing.T) {
	edges := []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 24, 0, 0, 0, 999999, time.UTC),
		time.Date(2026, 2, 28, 23, 59, 59, 1000000, time.FixedZone("x", -13*3600)),
		time.Unix(0, 0),
		{},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		sec := r.Int64N(2*20000*365*86400) - 20000*365*86400
		edges = append(edges, time.Unix(sec, r.Int64N(1e9)).In(time.FixedZone("z", (r.IntN(49)-24)*1800)))
	}
	for _, tm := range edges {
		want := tm.UTC().AppendFormat(nil, TimeFormat)
		if got := appendTime([]byte("x"), tm); string(got) != "x"+string(want) {
			t.Fatalf("%v: got %q, want %q", tm, got[1:], want)
		}
	}
}
