package storetest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// testFaults holds the cases of issue 17 that any store can be held to.
func testFaults(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	ctx := context.Background()
	p := ratelimit.StepParams{MaxRepeats: 2, ReservationTTL: time.Minute, ConversationTTL: time.Hour}
	t.Run("FailedCallChangesNothing", func(t *testing.T) {
		// A call made after its deadline may fail or succeed; when it fails
		// it must have changed nothing (a store that ran a script after the
		// caller gave up would leave a ghost reservation or a charge for a
		// denied call).
		s := newStore(t)
		dead, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
		defer cancel()
		if _, err := s.Reserve(dead, "conv", 1, fp('a'), p, epoch); err != nil {
			res, err := s.Reserve(ctx, "conv", 1, fp('a'), p, epoch)
			if err != nil || res.Status != ratelimit.StepOK {
				t.Errorf("after a failed Reserve: %+v, %v; want the step still free", res, err)
			}
		}
		c := []ratelimit.Counter{{Name: "n", Add: 1, Max: 1, TTL: time.Hour}}
		if _, err := s.Spend(dead, "agent", c, ratelimit.SpendCommit, epoch); err != nil {
			res, err := s.Spend(ctx, "agent", c, ratelimit.SpendCommit, epoch)
			if err != nil || res.Failed != -1 {
				t.Errorf("after a failed Spend: %+v, %v; want nothing spent", res, err)
			}
		}
		r := ratelimit.MustParseRate("1/hour")
		if _, err := s.Take(dead, "k", r, epoch); err != nil {
			res, err := s.Take(ctx, "k", r, epoch)
			if err != nil || !res.Allowed {
				t.Errorf("after a failed Take: %+v, %v; want the token still there", res, err)
			}
		}
	})
	t.Run("CapacityIsNotUnavailable", func(t *testing.T) {
		// A store may refuse new state at a cap, but then with an error
		// matching ErrCapacity and never ErrUnavailable; and a victim's
		// near-limit counter and committed steps survive any flood.
		s := newStore(t)
		victim := []ratelimit.Counter{{Name: "n", Add: 9, Max: 10, TTL: time.Hour}}
		if _, err := s.Spend(ctx, "victim", victim, ratelimit.SpendCommit, epoch); err != nil {
			t.Fatal(err)
		}
		res, err := s.Reserve(ctx, ratelimit.Key("victim", "conv"), 1, fp('a'), p, epoch)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := s.Commit(ctx, ratelimit.Key("victim", "conv"), 1, res.Token, fp('a'), p, epoch); err != nil || st != ratelimit.StepOK {
			t.Fatal(st, err)
		}
		rate := ratelimit.MustParseRate("2/hour")
		for range 2 {
			if r, err := s.Take(ctx, "victim", rate, epoch); err != nil || !r.Allowed {
				t.Fatal(r, err)
			}
		}
		for i := range 2000 {
			k := "flood-" + strconv.Itoa(i)
			_, err := s.Spend(ctx, k, []ratelimit.Counter{{Name: "n", Add: 1, Max: 10, TTL: time.Hour}}, ratelimit.SpendCommit, epoch)
			checkFloodErr(t, "budget", i, err)
			_, err = s.Take(ctx, k, ratelimit.MustParseRate("10/hour"), epoch)
			checkFloodErr(t, "rate", i, err)
			floodStep(ctx, t, s, ratelimit.Key(k, "conv"), i, p)
		}
		if r, err := s.Take(ctx, "victim", rate, epoch); err != nil || r.Allowed {
			t.Errorf("victim's emptied bucket after the flood: %+v, %v; want still empty", r, err)
		}
		one := []ratelimit.Counter{{Name: "n", Add: 1, Max: 10, TTL: time.Hour}}
		if r, err := s.Spend(ctx, "victim", one, ratelimit.SpendCommit, epoch); err != nil || r.Failed != -1 || r.Values[0] != 9 {
			t.Errorf("victim's 10th unit after the flood: %+v, %v; want allowed from 9", r, err)
		}
		if r, _ := s.Spend(ctx, "victim", one, ratelimit.SpendCommit, epoch); r.Failed != 0 {
			t.Errorf("victim's 11th unit after the flood: %+v; want refused", r)
		}
		// Evicted, the conversation may be refused as lost instead: never
		// accepted again.
		if r, err := s.Reserve(ctx, ratelimit.Key("victim", "conv"), 1, fp('a'), p, epoch); err != nil || (r.Status != ratelimit.StepReplay && r.Status != ratelimit.StepStateLost) {
			t.Errorf("victim's committed step after the flood: %+v, %v; want replay or state lost", r, err)
		}
	})
}

// testBudgetFlood (issue 17): a flood of distinct agents, each spending a
// tenth of its limit, never refuses anyone while evictable budgets remain
// (scopes that spent at most half of every limit) and leaves a fresh agent
// served; a second flood spending more than half is refused once nothing
// evictable is left. No budget that spent more than half of a limit, or
// any of a counter without a limit, is ever evicted; an agent at exactly
// half may be, and then regains at most what it spent (5 or 0 spent).
func testBudgetFlood(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	ctx := context.Background()
	s := newStore(t)
	spend := func(scope string, c ...ratelimit.Counter) (ratelimit.SpendResult, error) {
		return s.Spend(ctx, scope, c, ratelimit.SpendCommit, epoch)
	}
	n := func(add, max int64) ratelimit.Counter {
		return ratelimit.Counter{Name: "n", Add: add, Max: max, TTL: time.Hour}
	}
	day := func(add, max int64) ratelimit.Counter {
		return ratelimit.Counter{Name: "day", Add: add, Max: max, TTL: 24 * time.Hour}
	}
	for _, pre := range []struct {
		scope string
		c     []ratelimit.Counter
	}{
		{"over-half", []ratelimit.Counter{n(6, 10)}},
		{"one-over-half", []ratelimit.Counter{n(1, 10), day(51, 100)}},
		{"no-limit", []ratelimit.Counter{n(1, 0)}},
		{"half", []ratelimit.Counter{n(5, 10)}},
	} {
		if r, err := spend(pre.scope, pre.c...); err != nil || r.Failed != -1 {
			t.Fatalf("%s before the flood: %+v, %v", pre.scope, r, err)
		}
	}
	for i := range 2000 {
		if r, err := spend("flood-"+strconv.Itoa(i), n(1, 10)); err != nil || r.Failed != -1 {
			t.Fatalf("flood agent %d: %+v, %v; want served (every earlier flooder spent a tenth: evictable)", i, r, err)
		}
	}
	if r, err := spend("fresh", n(1, 10)); err != nil || r.Failed != -1 || r.Values[0] != 0 {
		t.Fatalf("fresh agent after the flood: %+v, %v; want served from 0", r, err)
	}
	// A second flood spends more than half: once nothing evictable is
	// left, new agents are refused as capacity, never by evicting these.
	for i := range 2000 {
		_, err := spend("over-"+strconv.Itoa(i), n(6, 10))
		checkFloodErr(t, "budget over half", i, err)
	}
	check := func(scope string, c ratelimit.Counter, want ...int64) {
		t.Helper()
		r, err := s.Spend(ctx, scope, []ratelimit.Counter{c}, ratelimit.SpendCheck, epoch)
		if err != nil || !slices.Contains(want, r.Values[0]) {
			t.Errorf("%s's %s after the flood: %+v, %v; want one of %v spent", scope, c.Name, r, err, want)
		}
	}
	check("over-half", n(4, 10), 6)
	check("one-over-half", n(0, 10), 1)
	check("one-over-half", day(0, 100), 51)
	check("no-limit", n(0, 0), 1)
	check("half", n(0, 10), 5, 0)
	// The victim over half is refused at exactly its limit.
	if r, err := spend("over-half", n(4, 10)); err != nil || r.Failed != -1 {
		t.Errorf("over-half's last 4 after the flood: %+v, %v", r, err)
	}
	if r, err := spend("over-half", n(1, 10)); err != nil || r.Failed != 0 {
		t.Errorf("over-half's 11th after the flood: %+v, %v; want refused", r, err)
	}
}

// checkFloodErr fails unless err is nil or a capacity refusal.
func checkFloodErr(t *testing.T, what string, i int, err error) {
	t.Helper()
	if err != nil && (!errors.Is(err, ratelimit.ErrCapacity) || errors.Is(err, ratelimit.ErrUnavailable)) {
		t.Fatalf("flood %s %d: %v, want success or ErrCapacity", what, i, err)
	}
}

// floodStep commits step 1 of a flooder's conversation, or is refused as
// capacity.
func floodStep(ctx context.Context, t *testing.T, s ratelimit.Store, scope string, i int, p ratelimit.StepParams) {
	t.Helper()
	res, err := s.Reserve(ctx, scope, 1, fp('f'), p, epoch)
	checkFloodErr(t, "conversation", i, err)
	if err != nil {
		return
	}
	if res.Status != ratelimit.StepOK {
		t.Fatalf("flood conversation %d: %v, want ok", i, res.Status)
	}
	if st, err := s.Commit(ctx, scope, 1, res.Token, fp('f'), p, epoch); err != nil || st != ratelimit.StepOK {
		t.Fatalf("flood conversation %d commit: %v, %v", i, st, err)
	}
}

// RunReplicas checks that two store instances sharing one backend (two
// replicas) keep the race counts exact: with 1,000 concurrent calls spread
// over both, exactly 1 reserves a step, exactly 100 spend from a limit of
// 100, and exactly 10 pass a rate of 10/minute. newPair returns two stores
// on one fresh, shared backend; for an in-process store return the same
// store twice.
func RunReplicas(t *testing.T, newPair func(t *testing.T) (a, b ratelimit.Store)) {
	ctx := context.Background()
	race := func(t *testing.T, want int, call func(s ratelimit.Store) (bool, error)) {
		a, b := newPair(t)
		stores := [2]ratelimit.Store{a, b}
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		start := make(chan struct{})
		for i := range Racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := call(stores[i%2])
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("racer %d: %v", i, err)
				}
				if ok {
					won++
				}
			}()
		}
		close(start)
		wg.Wait()
		if won != want {
			t.Errorf("%d of %d passed, want exactly %d", won, Racers, want)
		}
	}
	p := ratelimit.StepParams{MaxRepeats: 2, ReservationTTL: time.Minute, ConversationTTL: time.Hour}
	t.Run("Step", func(t *testing.T) {
		race(t, 1, func(s ratelimit.Store) (bool, error) {
			res, err := s.Reserve(ctx, "conv", 1, fp('a'), p, epoch)
			if err != nil || res.Status != ratelimit.StepOK {
				return false, err
			}
			st, err := s.Commit(ctx, "conv", 1, res.Token, fp('a'), p, epoch)
			return st == ratelimit.StepOK, err
		})
	})
	t.Run("Budget", func(t *testing.T) {
		race(t, 100, func(s ratelimit.Store) (bool, error) {
			res, err := s.Spend(ctx, "agent", []ratelimit.Counter{{Name: "requests/hour/1", Add: 1, Max: 100, TTL: time.Hour}}, ratelimit.SpendCommit, epoch)
			return err == nil && res.Failed == -1, err
		})
	})
	t.Run("Rate", func(t *testing.T) {
		race(t, 10, func(s ratelimit.Store) (bool, error) {
			res, err := s.Take(ctx, "agent", ratelimit.MustParseRate("10/minute"), epoch)
			return err == nil && res.Allowed, err
		})
	})
}
