// Package storetest is a conformance suite for [ratelimit.Store]
// implementations, in the manner of testing/slogtest: [Run] checks one
// implementation against the behaviour the ratelimit package relies on.
// ratelimit runs it against [ratelimit.MemoryStore] and redisstore runs it
// against a real Redis; run it against your own store the same way.
//
// All times handed to the store come from a fake clock, so the suite never
// sleeps for rate or reservation behaviour.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Racers is how many goroutines the race subtests start.
const Racers = 1000

// epoch is the fake clock's start: a fixed, realistic instant.
var epoch = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// Run runs the suite. newStore must return a new, empty store each call;
// subtests may run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	t.Run("Rate", func(t *testing.T) { testRate(t, newStore) })
	t.Run("Budget", func(t *testing.T) { testBudget(t, newStore) })
	t.Run("Steps", func(t *testing.T) { testSteps(t, newStore) })
	t.Run("Faults", func(t *testing.T) { testFaults(t, newStore) })
	t.Run("BudgetFlood", func(t *testing.T) { testBudgetFlood(t, newStore) })
}

func testRate(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	ctx := context.Background()
	t.Run("BurstThenRefill", func(t *testing.T) {
		s := newStore(t)
		r := ratelimit.MustParseRate("5/second")
		for i := range 5 {
			res, err := s.Take(ctx, "k", r, epoch)
			if err != nil || !res.Allowed || res.Remaining != 4-i || res.Limit != r {
				t.Fatalf("take %d of the burst: %+v, %v; want allowed with %d left", i+1, res, err, 4-i)
			}
		}
		res, err := s.Take(ctx, "k", r, epoch)
		if err != nil || res.Allowed {
			t.Fatalf("take 6 at once: %+v, %v; want denied", res, err)
		}
		if d := res.RetryAfter - 200*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
			t.Fatalf("RetryAfter = %v, want 200ms", res.RetryAfter)
		}
		if res, _ := s.Take(ctx, "k", r, epoch.Add(199*time.Millisecond)); res.Allowed {
			t.Fatal("allowed 199ms after the burst, want denied until 200ms")
		}
		if res, _ := s.Take(ctx, "k", r, epoch.Add(201*time.Millisecond)); !res.Allowed {
			t.Fatal("denied 201ms after the burst, want one token back")
		}
		if res, _ := s.Take(ctx, "k", r, epoch.Add(202*time.Millisecond)); res.Allowed {
			t.Fatal("allowed twice after one refill interval")
		}
		if res, _ := s.Take(ctx, "k", r, epoch.Add(time.Hour)); !res.Allowed || res.Remaining != 4 {
			t.Fatalf("after an hour idle: %+v, want a full bucket", res)
		}
	})
	t.Run("KeysAreIndependent", func(t *testing.T) {
		s := newStore(t)
		r := ratelimit.MustParseRate("1/hour")
		for _, k := range []string{"a", "b", "a:b", "{x}", "ключ"} {
			if res, err := s.Take(ctx, k, r, epoch); err != nil || !res.Allowed {
				t.Fatalf("first take of %q: %+v, %v", k, res, err)
			}
		}
		if res, _ := s.Take(ctx, "a", r, epoch); res.Allowed {
			t.Fatal("second take of \"a\" allowed within the hour")
		}
	})
	t.Run("InvalidInput", func(t *testing.T) {
		s := newStore(t)
		r := ratelimit.MustParseRate("1/s")
		for _, k := range []string{"", strings.Repeat("k", ratelimit.MaxKeyLen+1)} {
			res, err := s.Take(ctx, k, r, epoch)
			if !errors.Is(err, ratelimit.ErrInvalidKey) || res.Allowed {
				t.Errorf("key of %d bytes: %+v, %v; want denied with ErrInvalidKey", len(k), res, err)
			}
		}
		if res, err := s.Take(ctx, "k", ratelimit.Rate{}, epoch); !errors.Is(err, ratelimit.ErrInvalidRate) || res.Allowed {
			t.Errorf("zero rate: %+v, %v; want ErrInvalidRate", res, err)
		}
		if res, err := s.Take(ctx, strings.Repeat("k", ratelimit.MaxKeyLen), r, epoch); err != nil || !res.Allowed {
			t.Errorf("key of exactly MaxKeyLen bytes: %+v, %v; want allowed", res, err)
		}
	})
	t.Run("MatchesModel", func(t *testing.T) {
		for _, spec := range []string{"1/second", "3/second", "7/minute", "50/second", "100/hour"} {
			t.Run(spec, func(t *testing.T) {
				CheckAgainstModel(t, newStore(t), ratelimit.MustParseRate(spec), 1500, uint64(len(spec)))
			})
		}
	})
}

// CheckAgainstModel drives take through ops randomized calls (seeded by
// seed) on a few keys with a fake clock and fails t at the first answer that
// differs from [Model]. Instants within 2ms of a token boundary are avoided,
// so an implementation may round time to the microsecond or use floats.
func CheckAgainstModel(t *testing.T, s ratelimit.RateStore, r ratelimit.Rate, ops int, seed uint64) {
	t.Helper()
	const eps = 2 * time.Millisecond
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	m := NewModel(r)
	keys := []string{"alpha", "beta", "gamma"}
	now := epoch
	allowed := 0
	for i := range ops {
		key := keys[rng.IntN(len(keys))]
		// Mostly bursts and short gaps, so buckets drain; sometimes longer gaps
		// so they refill partly, and about once per 3N calls per key a pause
		// of up to two periods, so they refill fully.
		switch p := rng.IntN(100); {
		case rng.IntN(r.N) == 0 && p < 3:
			now = now.Add(time.Duration(rng.Int64N(int64(2 * r.Per))))
		case p < 50: // same instant
		case p < 90:
			now = now.Add(time.Duration(rng.Int64N(int64(r.Interval() / 4))))
		default:
			now = now.Add(time.Duration(rng.Int64N(int64(2 * r.Interval()))))
		}
		for m.Margin(key, now) < eps {
			now = now.Add(eps / 2)
		}
		wantOK, wantLeft, wantRetry := m.Take(key, now)
		got, err := s.Take(context.Background(), key, r, now)
		if err != nil {
			t.Fatalf("op %d: Take(%q, +%v): %v", i, key, now.Sub(epoch), err)
		}
		if got.Allowed != wantOK || got.Remaining != wantLeft {
			t.Fatalf("op %d: Take(%q, +%v) = allowed %v, %d left; model says %v, %d left", i, key, now.Sub(epoch), got.Allowed, got.Remaining, wantOK, wantLeft)
		}
		if d := got.RetryAfter - wantRetry; d < -eps || d > eps {
			t.Fatalf("op %d: RetryAfter = %v, model says %v", i, got.RetryAfter, wantRetry)
		}
		if wantOK {
			allowed++
		}
	}
	// The sequence must exercise both answers, or it checks little.
	if allowed < ops/10 || allowed > ops*9/10 {
		t.Fatalf("%d of %d calls allowed: the random sequence does not exercise the limiter", allowed, ops)
	}
}

func testBudget(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	ctx := context.Background()
	c := func(name string, add, max int64) ratelimit.Counter {
		return ratelimit.Counter{Name: name, Add: add, Max: max, TTL: time.Hour}
	}
	t.Run("CommitIsAllOrNothing", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 3, 0), c("b", 5, 0)}, ratelimit.SpendCommit, epoch); err != nil {
			t.Fatal(err)
		}
		res, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 1, 10), c("b", 6, 10)}, ratelimit.SpendCommit, epoch)
		if err != nil || res.Failed != 1 || fmt.Sprint(res.Values) != "[3 5]" {
			t.Fatalf("spend over b's max: %+v, %v; want Failed 1, values [3 5]", res, err)
		}
		res, err = s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 0, 0), c("b", 0, 0)}, ratelimit.SpendCheck, epoch)
		if err != nil || fmt.Sprint(res.Values) != "[3 5]" {
			t.Fatalf("after a failed commit: %+v, %v; want nothing added, values [3 5]", res, err)
		}
		res, err = s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 7, 10), c("b", 5, 10)}, ratelimit.SpendCommit, epoch)
		if err != nil || res.Failed != -1 {
			t.Fatalf("spend exactly to the max: %+v, %v; want success", res, err)
		}
		res, _ = s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 0, 0), c("b", 0, 0)}, ratelimit.SpendCheck, epoch)
		if fmt.Sprint(res.Values) != "[10 10]" {
			t.Fatalf("values %v, want [10 10]", res.Values)
		}
	})
	t.Run("CheckDoesNotSpend", func(t *testing.T) {
		s := newStore(t)
		for range 3 {
			res, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 4, 5)}, ratelimit.SpendCheck, epoch)
			if err != nil || res.Failed != -1 || res.Values[0] != 0 {
				t.Fatalf("check: %+v, %v", res, err)
			}
		}
		res, _ := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 6, 5)}, ratelimit.SpendCheck, epoch)
		if res.Failed != 0 {
			t.Fatalf("check of 6 against max 5: %+v, want Failed 0", res)
		}
	})
	t.Run("ForceGoesPastMax", func(t *testing.T) {
		s := newStore(t)
		res, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 9, 5)}, ratelimit.SpendForce, epoch)
		if err != nil || res.Failed != 0 {
			t.Fatalf("force: %+v, %v; want the overrun reported (Failed 0) and applied", res, err)
		}
		res, _ = s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 0, 5)}, ratelimit.SpendCheck, epoch)
		if res.Values[0] != 9 || res.Failed != 0 {
			t.Fatalf("after force: %+v, want value 9 and over max", res)
		}
	})
	t.Run("RefundTakesBackNeverBelowZero", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 3, 5)}, ratelimit.SpendCommit, epoch); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 2, 5), c("absent", 4, 5)}, ratelimit.SpendRefund, epoch); err != nil {
			t.Fatalf("refund: %v", err)
		}
		res, _ := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 0, 5), c("absent", 0, 5)}, ratelimit.SpendCheck, epoch)
		if res.Values[0] != 1 || res.Values[1] != 0 {
			t.Fatalf("after refunding 2 of 3 (and 4 of nothing): %+v, want 1 and 0", res)
		}
		s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 7, 5)}, ratelimit.SpendRefund, epoch)
		res, _ = s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 0, 5)}, ratelimit.SpendCheck, epoch)
		if res.Values[0] != 0 {
			t.Fatalf("refund past zero: %+v, want 0", res)
		}
	})
	t.Run("ScopesAreIndependent", func(t *testing.T) {
		s := newStore(t)
		for _, scope := range []string{"a", "b", "{a}"} {
			res, err := s.Spend(ctx, scope, []ratelimit.Counter{c("n", 1, 1)}, ratelimit.SpendCommit, epoch)
			if err != nil || res.Failed != -1 {
				t.Fatalf("scope %q: %+v, %v", scope, res, err)
			}
		}
	})
	t.Run("InvalidInput", func(t *testing.T) {
		s := newStore(t)
		bad := [][]ratelimit.Counter{nil, {c("", 1, 1)}, {c("a", -1, 1)}, {c("a", 1, -1)}, {{Name: "a", Add: 1}}}
		for _, cs := range bad {
			if _, err := s.Spend(ctx, "agent", cs, ratelimit.SpendCommit, epoch); err == nil {
				t.Errorf("Spend(%+v) succeeded, want an error", cs)
			}
		}
		if _, err := s.Spend(ctx, "", []ratelimit.Counter{c("a", 1, 1)}, ratelimit.SpendCommit, epoch); !errors.Is(err, ratelimit.ErrInvalidKey) {
			t.Errorf("empty scope: %v, want ErrInvalidKey", err)
		}
		if _, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("a", 1, 1)}, 0, epoch); err == nil {
			t.Error("mode 0 accepted")
		}
	})
	t.Run("RaceSpendsExactlyMax", func(t *testing.T) {
		s := newStore(t)
		const max = 37
		var ok, over atomic.Int64
		race(t, func(int) error {
			res, err := s.Spend(ctx, "agent", []ratelimit.Counter{c("day", 1, max), c("hour", 1, 0)}, ratelimit.SpendCommit, epoch)
			if err != nil {
				return err
			}
			if res.Failed == -1 {
				ok.Add(1)
			} else {
				over.Add(1)
			}
			return nil
		})
		if ok.Load() != max || over.Load() != Racers-max {
			t.Fatalf("%d spends succeeded and %d failed; want exactly %d and %d", ok.Load(), over.Load(), max, Racers-max)
		}
		res, _ := s.Spend(ctx, "agent", []ratelimit.Counter{c("day", 0, 0), c("hour", 0, 0)}, ratelimit.SpendCheck, epoch)
		if fmt.Sprint(res.Values) != fmt.Sprintf("[%d %d]", max, max) {
			t.Fatalf("final values %v, want [%d %d]", res.Values, max, max)
		}
	})
}

// race runs f in Racers goroutines released at once and fails t on errors.
func race(t *testing.T, f func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, Racers)
	for i := range Racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := f(i); err != nil {
				errs <- err
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("racer: %v", err)
	}
}
