package gatehouse_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// TestRateFloodOfDistinctClientsThroughGuard (issue 17 fault 2): clients
// declare their own names, so one attacker can be thousands of agents. Each
// spends one token of a 2/minute rule until the rate store is at its cap;
// a client that arrives after the flood is still served, and a client that
// spent its whole rate before the flood is still limited. The store's cap
// is 128 keys here so that a flood of 1,000 sessions reaches it; the
// ratelimit package floods its default store with 200,000 keys of the
// shape the Guard builds (TestRateFloodOfDistinctAgents).
func TestRateFloodOfDistinctClientsThroughGuard(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store, err := ratelimit.NewMemoryStore(&ratelimit.MemoryOptions{MaxKeys: 128})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, basePolicy, &gatehouse.Options{Clock: func() time.Time { return now }, Limits: &gatehouse.LimitOptions{RateStore: store}})
	victim := f.agent(t, "victim")
	for i := range 2 {
		if res := victim.callTool(i, "limited", nil); rpcErr(res) != nil {
			t.Fatalf("victim call %d: %v", i, res)
		}
	}
	for i := range 1000 {
		c := f.agent(t, "flood-"+strconv.Itoa(i))
		if res := c.callTool(1, "limited", nil); rpcErr(res) != nil {
			t.Fatalf("flood client %d: %v", i, res)
		}
	}
	if res := f.agent(t, "fresh").callTool(1, "limited", nil); rpcErr(res) != nil {
		t.Fatalf("fresh client after the flood: %v", res)
	}
	e := rpcErr(victim.callTool(3, "limited", nil))
	if fmt.Sprint(e["code"]) != "-32002" {
		t.Fatalf("victim's third call after the flood: %v, want -32002 (its spent bucket was evicted)", e)
	}
}
