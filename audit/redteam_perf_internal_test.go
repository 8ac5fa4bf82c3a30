package audit

import (
	"testing"
	"time"
)

// FuzzRedTeamPerf_AppendTime: appendTime writes what the layout writes
// for any instant a time.Time can hold (any seconds, nanoseconds and
// zone offset), not only the twenty thousand years the property test
// draws from. Passes on the current code.
func FuzzRedTeamPerf_AppendTime(f *testing.F) {
	f.Add(int64(0), int64(0), int32(0))
	f.Add(int64(253402300799), int64(999999999), int32(50400))
	f.Add(int64(-62135596800), int64(1), int32(-43200))
	f.Add(int64(1<<62), int64(5e8), int32(3600))
	f.Add(int64(-1<<62), int64(999999), int32(-1))
	f.Fuzz(func(t *testing.T, sec, nsec int64, off int32) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("f", int(off%(26*3600))))
		want := tm.UTC().AppendFormat(nil, TimeFormat)
		if got := appendTime(nil, tm); string(got) != string(want) {
			t.Fatalf("%v: got %q, want %q", tm, got, want)
		}
	})
}

// The seeds run as a test; the edges of every year 0-9999 boundary in
// UTC. Passes on the current code.
func TestRedTeamPerf_AppendTimeYearEdges(t *testing.T) {
	for y := -2; y <= 10001; y++ {
		for _, tm := range []time.Time{
			time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Date(y, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
			time.Date(y, 3, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond),
		} {
			want := tm.AppendFormat(nil, TimeFormat)
			if got := appendTime(nil, tm); string(got) != string(want) {
				t.Fatalf("%v: got %q, want %q", tm, got, want)
			}
		}
	}
}
