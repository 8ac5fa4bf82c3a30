package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

// counterOf is a budget counter of limit max spending add, in a window of
// an hour (name "n") or a day (name "day").
func counterOf(name string, add, max int64) ratelimit.Counter {
	ttl := time.Hour
	if name == "day" {
		ttl = 24 * time.Hour
	}
	return ratelimit.Counter{Name: name, Add: add, Max: max, TTL: ttl}
}

// spent is what scope has spent of counter name (SpendCheck: no write).
func spent(t *testing.T, s *redisstore.Store, scope, name string, at time.Time) int64 {
	t.Helper()
	r, err := s.Spend(context.Background(), scope, []ratelimit.Counter{counterOf(name, 0, 1000)}, ratelimit.SpendCheck, at)
	if err != nil {
		t.Fatalf("%s's %s: %v", scope, name, err)
	}
	return r.Values[0]
}

// TestBudgetEvictionIsBoundedLoss (issue 17): at MaxBudgetScopes 4 a new
// agent evicts, one per admission, the least-used scope that spent at most
// half of every limit (nothing spent first, then 3 of 10, then 5 of 10),
// deleting its counters: the owner regains exactly what it had spent. A
// scope over half of any limit, even of a counter charged in an earlier
// call than its last, is never evicted; once only such scopes are left, a
// new agent is refused with a CapacityError naming MaxBudgetScopes and
// every counter is unchanged, until the over-half counters expire.
func TestBudgetEvictionIsBoundedLoss(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s := newStore(t, c, &redisstore.Options{MaxBudgetScopes: 4})
	ctx := context.Background()
	charge := func(scope string, c ...ratelimit.Counter) error {
		t.Helper()
		r, err := s.Spend(ctx, scope, c, ratelimit.SpendCommit, epoch)
		if err == nil && r.Failed != -1 {
			t.Fatalf("%s: %+v, want served", scope, r)
		}
		return err
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(charge("zero", counterOf("n", 0, 10)))
	must(charge("three", counterOf("n", 3, 10)))
	must(charge("half", counterOf("n", 5, 10)))
	// Over half of the hourly limit, then a day counter charged alone at
	// 1 of 100: the scope's share stays 0.6.
	must(charge("over", counterOf("n", 6, 10)))
	must(charge("over", counterOf("day", 1, 100)))
	for i, want := range []string{"zero", "three", "half"} {
		must(charge(fmt.Sprint("new", i), counterOf("n", 6, 10), counterOf("day", 1, 100)))
		if got := spent(t, s, want, "n", epoch); got != 0 {
			t.Errorf("after new agent %d, %s's counter reads %d, want 0 (evicted: the least used)", i, want, got)
		}
		for _, kept := range []string{"zero", "three", "half"}[i+1:] {
			if spent(t, s, kept, "n", epoch) == 0 && kept != "zero" {
				t.Errorf("after new agent %d, %s was evicted too: one eviction per admission", i, kept)
			}
		}
	}
	var ce *ratelimit.CapacityError
	if err := charge("late", counterOf("n", 1, 10)); !errors.As(err, &ce) || ce.Cap != "redisstore Options.MaxBudgetScopes" || errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("new agent with every scope over half: %v, want a CapacityError naming MaxBudgetScopes", err)
	}
	if got := spent(t, s, "over", "n", epoch); got != 6 {
		t.Errorf("over's hourly counter: %d, want 6 (never evicted)", got)
	}
	if got := spent(t, s, "over", "day", epoch); got != 1 {
		t.Errorf("over's day counter: %d, want 1 (never evicted)", got)
	}
	for i := range 3 {
		if got := spent(t, s, fmt.Sprint("new", i), "n", epoch); got != 6 {
			t.Errorf("new%d: %d, want 6", i, got)
		}
	}
	// Two hours later every hourly window has ended (Redis expired the
	// counters: deleted here, as the clock is fake), and each scope holds
	// only its day counter at 1 of 100, though the index still has the
	// levels of their last charges (0.6): a sample of them is judged again
	// and one is evicted for a new agent, counters and all.
	later := epoch.Add(2 * time.Hour)
	for _, scope := range []string{"over", "new0", "new1", "new2"} {
		if err := c.Del(ctx, redisstore.DefaultPrefix+"b:{"+scope+"}:n").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Spend(ctx, "late", []ratelimit.Counter{counterOf("n2", 1, 10)}, ratelimit.SpendCommit, later); err != nil {
		t.Fatalf("new agent once the over-half windows ended: %v, want served", err)
	}
	evicted := 0
	for _, scope := range []string{"over", "new0", "new1", "new2"} {
		switch got := spent(t, s, scope, "day", later); got {
		case 0:
			evicted++
		case 1:
		default:
			t.Errorf("%s's day counter: %d, want 1 or 0 (evicted)", scope, got)
		}
	}
	if evicted != 1 {
		t.Errorf("%d scopes evicted for one new agent, want 1", evicted)
	}
}

// TestBudgetEvictionJudgesLiveCounters: a candidate is judged on its
// counters as they are, not on the share indexed at its last charge. A
// scope refunded from 6 to 4 of 10 is evictable (as in the memory store);
// a scope charged to 9 of 10 by a replica without caps (sharing the
// prefix, so the index still says 1 of 10) is not: the next candidate is
// evicted instead, and with nothing else evictable the next new agent is
// refused and the victim keeps its 9.
func TestBudgetEvictionJudgesLiveCounters(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	commit := func(s *redisstore.Store, scope string, add int64, mode ratelimit.SpendMode) error {
		t.Helper()
		r, err := s.Spend(ctx, scope, []ratelimit.Counter{counterOf("n", add, 10)}, mode, epoch)
		if err == nil && r.Failed != -1 {
			t.Fatalf("%s: %+v, want served", scope, r)
		}
		return err
	}
	t.Run("Refunded", func(t *testing.T) {
		s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "refund:", MaxBudgetScopes: 2})
		for _, err := range []error{
			commit(s, "refunded", 6, ratelimit.SpendCommit),
			commit(s, "refunded", 2, ratelimit.SpendRefund),
			commit(s, "over", 6, ratelimit.SpendCommit),
			commit(s, "new", 1, ratelimit.SpendCommit),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := spent(t, s, "refunded", "n", epoch); got != 0 {
			t.Errorf("refunded to 4 of 10: reads %d, want 0 (evicted)", got)
		}
		if got := spent(t, s, "over", "n", epoch); got != 6 {
			t.Errorf("over: reads %d, want 6", got)
		}
	})
	t.Run("ReplicaWithoutCaps", func(t *testing.T) {
		capped := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "mixed:", MaxBudgetScopes: 3})
		open := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "mixed:", AcceptIdentityFlood: true})
		for _, err := range []error{
			commit(capped, "victim", 1, ratelimit.SpendCommit),
			commit(open, "victim", 8, ratelimit.SpendCommit),
			commit(capped, "low", 2, ratelimit.SpendCommit),
			commit(capped, "over", 6, ratelimit.SpendCommit),
			// The victim is first in the index (1 of 10) but spent 9: the
			// next candidate, low, is evicted instead.
			commit(capped, "new1", 6, ratelimit.SpendCommit),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := spent(t, capped, "low", "n", epoch); got != 0 {
			t.Errorf("low (2 of 10): reads %d, want 0 (evicted)", got)
		}
		var ce *ratelimit.CapacityError
		if err := commit(capped, "new2", 1, ratelimit.SpendCommit); !errors.As(err, &ce) {
			t.Errorf("new agent with the victim at 9 of 10 and the others at 6: %v, want a CapacityError", err)
		}
		if got := spent(t, capped, "victim", "n", epoch); got != 9 {
			t.Errorf("victim: reads %d, want 9 (never evicted)", got)
		}
	})
}
