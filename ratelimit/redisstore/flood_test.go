package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

// distinctFlood is the number of distinct identities of the flood tests
// over Redis: 20 times the bucket and budget caps below, 4 times the
// conversation cap (the in-memory tests flood 200k; over Redis, four script
// calls per identity, that takes minutes under -race on two cores).
const distinctFlood = 20_000

// floodAgents runs f for agents 0..n-1 on 8 goroutines and returns how
// many of the errors f reports were capacity refusals, by cap, and the
// first few that were not.
func floodAgents(n int, f func(i int) []error) (refused map[string]int, others []error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	refused = map[string]int{}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				for _, err := range f(i) {
					if err == nil {
						continue
					}
					mu.Lock()
					var ce *ratelimit.CapacityError
					if errors.As(err, &ce) && !errors.Is(err, ratelimit.ErrUnavailable) {
						refused[ce.Cap]++
					} else if len(others) < 5 {
						others = append(others, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return refused, others
}

// TestIdentityFloodOfDistinctAgents (issue 17 fault 2, Redis): 20,000
// distinct agents each take a token, charge their budget and commit a
// conversation step, against caps of 1,000 buckets, 1,000 budget agents and
// 5,000 conversations (25,000 with tombstones). Afterwards:
//   - nobody was refused: buckets at least half full, budgets that spent
//     at most half of their limit (each flooder spent 1 of 100) and idle
//     conversations were evicted for each newcomer;
//   - a fresh agent gets a token, a budget and a conversation;
//   - the agent counted before the flood with 1 of 100 spent, evictable,
//     regains at most that one: it is served 99 or 100 more times, never
//     101;
//   - the victim's empty bucket is still empty, its spent budget still
//     spent (refused at 100, not evicted), and its committed step 2 is
//     refused (replay or, its conversation evicted, state lost), never
//     accepted.
func TestIdentityFloodOfDistinctAgents(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s := newStore(t, c, &redisstore.Options{MaxRateKeys: 1000, MaxBudgetScopes: 1000, MaxConversations: 5000, Timeout: raceTimeout})
	v := newVictim(t, s)
	ctx := context.Background()
	if err := v.bud.Charge(ctx, "early", ratelimit.Usage{}); err != nil {
		t.Fatal(err)
	}
	v.spend(t)
	refused, others := floodAgents(distinctFlood, func(i int) []error {
		agent := fmt.Sprint("flood-", i)
		_, rerr := v.lim.Allow(ctx, agent)
		berr := v.bud.Charge(ctx, agent, ratelimit.Usage{})
		r, err := v.guard.Begin(ctx, stepOf(agent, "c", 1))
		if err == nil {
			err = r.Commit(ctx)
		}
		return []error{rerr, berr, err}
	})
	for _, err := range others {
		t.Errorf("flood: %v, want only capacity refusals", err)
	}
	t.Logf("flood of %d distinct agents: refused %v", distinctFlood, refused)
	if len(refused) > 0 {
		t.Errorf("refusals %v: evictable state should have been evicted", refused)
	}
	if n, err := c.ZCard(context.Background(), redisstore.DefaultPrefix+"ix:b").Result(); err != nil || n != 1000 {
		t.Errorf("budget agents indexed after the flood: %d, %v; want the cap, 1000 (the flood reached it)", n, err)
	}
	if res, err := v.lim.Allow(ctx, "fresh"); err != nil || !res.Allowed {
		t.Errorf("fresh agent's rate check after the flood: %+v, %v", res, err)
	}
	if r, err := v.guard.Begin(ctx, stepOf("fresh", "c", 1)); err != nil {
		t.Errorf("fresh agent's conversation after the flood: %v", err)
	} else if err := r.Commit(ctx); err != nil {
		t.Error(err)
	}
	var be *ratelimit.BudgetError
	if err := v.bud.Charge(ctx, "fresh", ratelimit.Usage{}); err != nil {
		t.Errorf("fresh agent's budget after the flood: %v, want served", err)
	}
	// The agent counted before the flood, with 1 of 100 spent, is served
	// 99 more times (kept) or 100 (evicted: it regained its one), never 101.
	served := 0
	for range 101 {
		err := v.bud.Charge(ctx, "early", ratelimit.Usage{})
		if err == nil {
			served++
			continue
		}
		if !errors.As(err, &be) {
			t.Fatalf("agent counted before the flood, charge %d: %v, want served or a BudgetError", served+2, err)
		}
		break
	}
	if served != 99 && served != 100 {
		t.Errorf("agent counted before the flood with 1 of 100 spent was served %d more times, want 99 or 100", served)
	}
	if lost := v.held(t); len(lost) > 0 {
		t.Errorf("victim after the flood: %v", lost)
	}
	if err := v.bud.Charge(ctx, "victim", ratelimit.Usage{}); !errors.As(err, &be) || be.Current != 100 {
		t.Errorf("victim's budget after the flood: %v, want a BudgetError at 100 spent", err)
	}
}

// TestConversationTombstones: with MaxConversations 10 (40 tombstones),
// distinct agents' conversations evict the least recently active. One with
// committed steps leaves a tombstone: its steps are refused as state lost
// at every step, step 1 included, and its reservation in flight cannot be
// committed. One with only a reservation has nothing to replay and goes
// without a trace: its commit still works. Once the tombstones are full,
// new conversations are refused as capacity naming MaxConversations, never
// as unavailable.
func TestConversationTombstones(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{MaxConversations: 10})
	guard := func(at time.Time) *ratelimit.Guard {
		g, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s, Now: fixed(at)})
		return g
	}
	g := guard(epoch)
	ctx := context.Background()
	onlyReserved, err := guard(epoch.Add(-2*time.Hour)).Begin(ctx, stepOf("q", "c", 1))
	if err != nil {
		t.Fatal(err)
	}
	old := guard(epoch.Add(-time.Hour))
	r, err := old.Begin(ctx, stepOf("p", "c", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	inFlight, err := old.Begin(ctx, stepOf("p", "c", 2))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 49 { // with p: 10 live and 40 tombstones
		r, err := g.Begin(ctx, stepOf(fmt.Sprint("a", i), "c", 1))
		if err != nil {
			t.Fatalf("conversation %d: %v", i, err)
		}
		if err := r.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := inFlight.Commit(ctx); !errors.Is(err, ratelimit.ErrReservationLost) {
		t.Errorf("commit of a reservation whose conversation was evicted: %v, want ErrReservationLost", err)
	}
	if err := onlyReserved.Commit(ctx); err != nil {
		t.Errorf("commit of a conversation evicted before anything was committed: %v", err)
	}
	for _, a := range []ratelimit.Action{stepOf("p", "c", 1), stepOf("p", "c", 2), stepOf("a0", "c", 1), stepOf("a0", "c", 2)} {
		if _, err := g.Begin(ctx, a); !errors.Is(err, ratelimit.ErrStateLost) {
			t.Errorf("%s step %d of an evicted conversation: %v, want ErrStateLost", a.Agent, a.Step, err)
		}
	}
	_, err = g.Begin(ctx, stepOf("late", "c", 1))
	var ce *ratelimit.CapacityError
	if !errors.As(err, &ce) || ce.Cap != "redisstore Options.MaxConversations" || errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("new conversation with every tombstone live: %v, want a CapacityError naming MaxConversations", err)
	}
	// A day later every conversation and tombstone has expired: served.
	if _, err := guard(epoch.Add(25*time.Hour)).Begin(ctx, stepOf("late", "c", 1)); err != nil {
		t.Fatalf("new conversation once the tombstones expired: %v", err)
	}
}

// TestRateEvictionIsBoundedLoss: at MaxRateKeys only buckets holding at
// least half their tokens are evicted; when every bucket is more than half
// empty, a new key is refused as capacity naming MaxRateKeys, and no
// emptied bucket was refilled.
func TestRateEvictionIsBoundedLoss(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{MaxRateKeys: 20})
	ctx := context.Background()
	r := ratelimit.MustParseRate("2/minute")
	for i := range 20 {
		for range 2 {
			if res, err := s.Take(ctx, fmt.Sprint("k", i), r, epoch); err != nil || !res.Allowed {
				t.Fatal(res, err)
			}
		}
	}
	_, err := s.Take(ctx, "new", r, epoch)
	var ce *ratelimit.CapacityError
	if !errors.As(err, &ce) || ce.Cap != "redisstore Options.MaxRateKeys" {
		t.Fatalf("new key with every bucket empty: %v, want a CapacityError naming MaxRateKeys", err)
	}
	for i := range 20 {
		if res, err := s.Take(ctx, fmt.Sprint("k", i), r, epoch); err != nil || res.Allowed {
			t.Fatalf("emptied bucket k%d after the refusal: %+v, %v; want still empty", i, res, err)
		}
	}
	// Half a period later the buckets are half full again: evictable.
	if res, err := s.Take(ctx, "new", r, epoch.Add(30*time.Second)); err != nil || !res.Allowed {
		t.Fatalf("new key once buckets are half full: %+v, %v", res, err)
	}
}

// TestDistinctFloodUnderMaxmemory (issue 17 fault 2, Redis): a 48 MB Redis
// under noeviction, flooded by 36,000 distinct agents with 200-byte names
// (a bucket, a budget and a conversation each: far more than 48 MB
// unbounded; about 30 MB capped). With caps of 2,000 buckets, 2,000 budget agents and 8,000
// conversations (40,000 with tombstones) the flood stays within memory and
// a fresh agent gets a token and a conversation. Without them (AcceptIdentityFlood, the
// store as it was) Redis refuses writes at maxmemory for everyone: the
// fresh agent is refused too.
func TestDistinctFloodUnderMaxmemory(t *testing.T) {
	for _, capped := range []bool{true, false} {
		t.Run(fmt.Sprint("capped=", capped), func(t *testing.T) {
			srv := redistest.StartWith(t, redistest.Config{MaxMemory: "48mb"})
			s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{MaxRateKeys: 2000, MaxBudgetScopes: 2000, MaxConversations: 8000, AcceptIdentityFlood: !capped, Timeout: raceTimeout})
			v := newVictim(t, s)
			ctx := context.Background()
			pad := strings.Repeat("x", 200)
			refused, others := floodAgents(36_000, func(i int) []error {
				agent := fmt.Sprint("flood-", i, "-", pad)
				_, rerr := v.lim.Allow(ctx, agent)
				berr := v.bud.Charge(ctx, agent, ratelimit.Usage{})
				r, err := v.guard.Begin(ctx, stepOf(agent, "c", 1))
				if err == nil {
					err = r.Commit(ctx)
				}
				return []error{rerr, berr, err}
			})
			for _, err := range others {
				t.Errorf("flood: %v, want only capacity refusals", err)
			}
			t.Logf("refused %v", refused)
			var failed []string
			if res, err := v.lim.Allow(ctx, "fresh"); err != nil || !res.Allowed {
				failed = append(failed, fmt.Sprintf("rate: %+v, %v", res, err))
			}
			if r, err := v.guard.Begin(ctx, stepOf("fresh", "c", 1)); err != nil {
				failed = append(failed, fmt.Sprint("conversation: ", err))
			} else if err := r.Commit(ctx); err != nil {
				failed = append(failed, fmt.Sprint("conversation commit: ", err))
			}
			switch {
			case capped && len(failed) > 0:
				t.Errorf("fresh agent after the flood: %s", strings.Join(failed, "; "))
			case !capped && len(failed) == 0:
				t.Errorf("without caps the flood did not reach maxmemory; the test proves nothing")
			case !capped:
				t.Logf("without caps, as expected, the fresh agent was refused: %s", strings.Join(failed, "; "))
			}
		})
	}
}
