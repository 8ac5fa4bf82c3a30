package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// redteamInstants are clocks far from today: the zero time, years 1 and
// 9999 at their edges (also as local times whose UTC year differs),
// years past 9999 and before 0, a reading with a monotonic clock, and
// sub-millisecond nanoseconds.
func redteamInstants() []time.Time {
	plus14, minus12 := time.FixedZone("+14", 14*3600), time.FixedZone("-12", -12*3600)
	return []time.Time{
		{},
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1, 1, 1, 5, 0, 0, 999_999, plus14), // UTC year 0
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(9999, 12, 31, 13, 0, 0, 0, minus12),          // UTC year 10000
		time.Date(10000, 1, 1, 10, 0, 0, 0, plus14),            // UTC year 9999
		time.Date(292277026596, 12, 4, 15, 30, 7, 0, time.UTC), // near the largest year
		time.Date(-4713, 11, 24, 12, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 999_500_000, minus12),
		time.Now(), // with its monotonic reading
		time.Now().In(plus14),
	}
}

// A Writer's lines and Events carry exactly the timestamp the layout
// writes (what the code before the hand-made formatting wrote), for
// instants far from today and in other zones; event_hash on the Event is
// the line's; the chain verifies. Concurrent writers each get their own
// event's hash and timestamp. Passes on the current code; pins the
// contract end to end (the unit test covers appendTime alone).
func TestRedTeamPerf_TimestampsEndToEnd(t *testing.T) {
	ins := redteamInstants()
	var mu sync.Mutex
	i := 0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tm := ins[i%len(ins)]
		i++
		return tm
	}
	var buf bytes.Buffer
	w, err := audit.New(&buf, &audit.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	events := make([]*audit.Event, n)
	var wg sync.WaitGroup
	for k := range n {
		events[k] = sampleEvent(k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Write(context.Background(), events[k]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != n {
		t.Fatalf("%d lines", len(lines))
	}
	bySeq := map[uint64]*audit.Event{}
	for _, e := range events {
		bySeq[e.Seq] = e
	}
	for k, line := range lines {
		var m struct {
			Seq       uint64 `json:"seq"`
			Timestamp string `json:"timestamp"`
			EventHash string `json:"event_hash"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		want := ins[k%len(ins)].UTC().Format(audit.TimeFormat)
		e := bySeq[m.Seq]
		if m.Seq != uint64(k+1) || m.Timestamp != want || e == nil || e.Timestamp != want || e.EventHash != m.EventHash {
			t.Fatalf("line %d: %s\nwant timestamp %q; the Event has %+v", k+1, line, want, e)
		}
	}
	if _, err := audit.Verify(bytes.NewReader(buf.Bytes()), nil); err != nil {
		t.Fatal(err)
	}
}
