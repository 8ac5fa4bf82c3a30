package ratelimit_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// TestInFlightRefusesAtOnce (issue 17 fault 7): over a cap, Acquire answers
// at once with a CapacityError naming the cap, never ErrUnavailable; release
// frees the slot; a second release does nothing.
func TestInFlightRefusesAtOnce(t *testing.T) {
	f, err := ratelimit.NewInFlight(&ratelimit.InFlightOptions{PerAgent: 2, PerTool: 2, Total: 4})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(agent, tool, wantCap string) {
		t.Helper()
		_, err := f.Acquire(agent, tool)
		var ce *ratelimit.CapacityError
		if !errors.As(err, &ce) || ce.Cap != wantCap || !errors.Is(err, ratelimit.ErrCapacity) || errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("Acquire(%s, %s) = %v, want a CapacityError naming %s", agent, tool, err, wantCap)
		}
	}
	acquire := func(agent, tool string) func() {
		t.Helper()
		rel, err := f.Acquire(agent, tool)
		if err != nil {
			t.Fatalf("Acquire(%s, %s): %v", agent, tool, err)
		}
		return rel
	}
	a1 := acquire("a", "x")
	acquire("a", "y")
	refused("a", "z", "InFlightOptions.PerAgent")
	acquire("b", "x")
	refused("c", "x", "InFlightOptions.PerTool")
	acquire("c", "w")
	refused("d", "v", "InFlightOptions.Total")
	a1()
	a1() // no effect
	if total, _, _ := f.InFlightNow(); total != 3 {
		t.Fatalf("after one release: %d in flight, want 3", total)
	}
	acquire("a", "z")
	refused("e", "q", "InFlightOptions.Total")
}

// TestInFlightNeverExceedsCaps: 1,000 goroutines on one agent with
// PerAgent 10 never hold more than 10 at once, and leave no state behind.
func TestInFlightNeverExceedsCaps(t *testing.T) {
	f, err := ratelimit.NewInFlight(&ratelimit.InFlightOptions{PerAgent: 10})
	if err != nil {
		t.Fatal(err)
	}
	var cur, peak, ok, no atomic.Int64
	var wg sync.WaitGroup
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, err := f.Acquire("agent", "tool")
			if err != nil {
				no.Add(1)
				return
			}
			ok.Add(1)
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			cur.Add(-1)
			rel()
		}()
	}
	wg.Wait()
	if peak.Load() > 10 || ok.Load()+no.Load() != 1000 || ok.Load() < 10 {
		t.Fatalf("peak %d, %d acquired, %d refused", peak.Load(), ok.Load(), no.Load())
	}
	if total, agents, tools := f.InFlightNow(); total+agents+tools != 0 {
		t.Fatalf("left behind: %d in flight, %d agents, %d tools", total, agents, tools)
	}
	if _, err := ratelimit.NewInFlight(&ratelimit.InFlightOptions{Total: -1}); !errors.Is(err, ratelimit.ErrInvalidOptions) {
		t.Fatalf("negative cap: %v", err)
	}
}
