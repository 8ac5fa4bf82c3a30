package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

var epoch = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

func fixed(t time.Time) func() time.Time { return func() time.Time { return t } }

// victim is the state an eviction or a restart must not erase: a budget of
// 100/hour spent to its limit, a 10/minute bucket emptied, and a conversation
// with committed steps 1 to 3.
type victim struct {
	lim   *ratelimit.Limiter
	bud   *ratelimit.Budget
	guard *ratelimit.Guard
}

func newVictim(t *testing.T, s ratelimit.Store) victim {
	t.Helper()
	lim, err := ratelimit.NewLimiter(ratelimit.MustParseRate("10/minute"), &ratelimit.LimiterOptions{Store: s, Now: fixed(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	bud, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 100}, &ratelimit.BudgetOptions{Store: s, Now: fixed(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s, Now: fixed(epoch)})
	if err != nil {
		t.Fatal(err)
	}
	return victim{lim, bud, g}
}

func stepOf(agent, conv string, step int64) ratelimit.Action {
	return ratelimit.Action{Agent: agent, ConversationID: conv, Step: step, Tool: "t", Args: map[string]any{"n": step}}
}

// spend brings the victim to its limits.
func (v victim) spend(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		if res, err := v.lim.Allow(ctx, "victim"); err != nil || !res.Allowed {
			t.Fatalf("victim rate: %+v, %v", res, err)
		}
	}
	for range 100 {
		if err := v.bud.Charge(ctx, "victim", ratelimit.Usage{}); err != nil {
			t.Fatalf("victim budget: %v", err)
		}
	}
	for step := int64(1); step <= 3; step++ {
		r, err := v.guard.Begin(ctx, stepOf("victim", "conv", step))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// held reports what of the victim's state still holds: each entry names a
// limit the victim got around.
func (v victim) held(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var lost []string
	if res, err := v.lim.Allow(ctx, "victim"); err == nil && res.Allowed {
		lost = append(lost, "rate bucket refilled")
	}
	if err := v.bud.Charge(ctx, "victim", ratelimit.Usage{}); err == nil {
		lost = append(lost, "spent budget reset")
	}
	if r, err := v.guard.Begin(ctx, stepOf("victim", "conv", 2)); err == nil {
		_ = r.Release(ctx)
		lost = append(lost, "committed step 2 replayable")
	}
	return lost
}

// TestCorruptNumbersFailClosed (issue 17 fault 4): a numeric field that is
// present but not what the scripts write ("abc", "nan", hex, overflowing,
// infinite) is an error naming the key, never read as zero. Near misses that
// are valid numbers still work.
func TestCorruptNumbersFailClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	ctx := context.Background()
	p := ratelimit.StepParams{MaxRepeats: 2, ReservationTTL: time.Minute, ConversationTTL: time.Hour}
	fp := ratelimit.Fingerprint{1}
	bad := []string{"abc", "nan", "NaN", "inf", "-inf", "0x10", "1e400", "", " 5", "5 ", "9999999999999999999", "1.5"}
	type target struct {
		name  string
		key   func(prefix string) string
		field string // "" for a string key
		ok    []string
		probe func(s *redisstore.Store) error
		wrap  func(v string) string // the stored value holding v, when more than v
	}
	charge := func(s *redisstore.Store) error {
		_, err := s.Spend(ctx, "agent", []ratelimit.Counter{{Name: "n", Add: 1, Max: 10, TTL: time.Hour}}, ratelimit.SpendCommit, epoch)
		return err
	}
	targets := []target{
		{"conversation last", func(p string) string { return p + "c:{conv}4:conv" }, "last", []string{"7", "0", "-1"},
			func(s *redisstore.Store) error {
				res, err := s.Reserve(ctx, "conv", 3, fp, p, epoch)
				if err == nil && res.Status == ratelimit.StepOK {
					_ = s.Release(ctx, "conv", 3, res.Token)
				}
				return err
			}, nil},
		{"conversation rep", func(p string) string { return p + "c:{conv}4:conv" }, "rep", []string{"1", "0"},
			func(s *redisstore.Store) error { _, err := s.Reserve(ctx, "conv", 9, fp, p, epoch); return err }, nil},
		{"budget counter", func(p string) string { return p + "b:{agent}:n" }, "", []string{"3", "0"},
			func(s *redisstore.Store) error {
				_, err := s.Spend(ctx, "agent", []ratelimit.Counter{{Name: "n", Add: 1, Max: 10, TTL: time.Hour}}, ratelimit.SpendCheck, epoch)
				return err
			}, nil},
		{"rate TAT", func(p string) string { return p + "r:{k}" }, "", []string{"1773500966000000", "1.7735009660000002e+15", "12.5", "1.5", "9999999999999999999"},
			func(s *redisstore.Store) error {
				_, err := s.Take(ctx, "k", ratelimit.MustParseRate("5/second"), epoch)
				return err
			}, nil},
		{"reservation expiry", func(p string) string { return p + "c:{conv}4:conv:4" }, "", []string{"12", "1.5e+15", "1.5", "9999999999999999999"},
			func(s *redisstore.Store) error { _, err := s.Reserve(ctx, "conv", 4, fp, p, epoch); return err },
			func(v string) string { return "tok|" + v }},
		// The record of a budget scope's counters (caps): the limit of
		// another counter, read when the scope is charged.
		{"budget record limit", func(p string) string { return p + "bm:{agent}" }, "m", []string{"10", "1", "0", "1.5", "9999999999999999999"}, charge, nil},
	}
	n := 0
	for _, tg := range targets {
		for _, v := range append(append([]string{}, bad...), tg.ok...) {
			n++
			prefix := fmt.Sprintf("t%d:", n)
			s := newStore(t, c, &redisstore.Options{Prefix: prefix})
			key := tg.key(prefix)
			val := v
			if tg.wrap != nil {
				val = tg.wrap(v)
			}
			if tg.name == "reservation expiry" {
				// A known conversation, so that the reservation is read.
				if err := c.HSet(ctx, prefix+"c:{conv}4:conv", "last", 1).Err(); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			if tg.field != "" {
				err = c.HSet(ctx, key, tg.field, val).Err()
			} else {
				err = c.Set(ctx, key, val, time.Hour).Err()
			}
			if err != nil {
				t.Fatal(err)
			}
			err = tg.probe(s)
			valid := false
			for _, ok := range tg.ok {
				valid = valid || ok == v
			}
			switch {
			case valid && err != nil:
				t.Errorf("%s = %q (valid): %v", tg.name, v, err)
			case !valid && (!errors.Is(err, ratelimit.ErrUnavailable) || !strings.Contains(err.Error(), key)):
				t.Errorf("%s = %q: %v, want ErrUnavailable naming %s", tg.name, v, err, key)
			}
		}
	}
}

// TestScriptAfterDeadlineChangesNothing (issue 17 fault 3): Redis stalled
// (SIGSTOP, and CLIENT PAUSE) past the caller's timeout; scripts already
// sent run when it resumes, after the callers denied. They must change
// nothing: no step left reserved ("already being decided"), no budget
// charged.
func TestScriptAfterDeadlineChangesNothing(t *testing.T) {
	for _, mode := range []string{"sigstop", "client-pause"} {
		t.Run(mode, func(t *testing.T) {
			srv := redistest.Start(t)
			c := newClient(t, srv.Addr())
			admin := newClient(t, srv.Addr())
			ctx := context.Background()
			s := newStore(t, c, &redisstore.Options{Timeout: 200 * time.Millisecond})
			g, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
			bud, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 5}, &ratelimit.BudgetOptions{Store: s})
			if err := bud.Check(ctx, "warm", ratelimit.Usage{}); err != nil { // scripts loaded
				t.Fatal(err)
			}
			if _, err := g.Begin(ctx, stepOf("warm", "conv", 1)); err != nil {
				t.Fatal(err)
			}
			stalled := time.Now()
			if mode == "sigstop" {
				srv.Pause()
			} else if err := admin.Do(ctx, "CLIENT", "PAUSE", "3000").Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Begin(ctx, stepOf("a", "conv", 1)); !errors.Is(err, ratelimit.ErrUnavailable) {
				t.Fatalf("Begin while stalled: %v, want ErrUnavailable", err)
			}
			for range 3 {
				if err := bud.Charge(ctx, "a", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrUnavailable) {
					t.Fatalf("Charge while stalled: %v, want ErrUnavailable", err)
				}
			}
			if mode == "sigstop" {
				time.Sleep(time.Until(stalled.Add(1200 * time.Millisecond)))
				srv.Resume()
			} else {
				time.Sleep(time.Until(stalled.Add(3200 * time.Millisecond)))
			}
			// The stalled scripts run first; retry until the client has a
			// working connection again.
			var r *ratelimit.Reservation
			var err error
			for range 50 {
				if r, err = g.Begin(ctx, stepOf("a", "conv", 1)); !errors.Is(err, ratelimit.ErrUnavailable) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil {
				t.Fatalf("retry of the step denied while Redis was stalled: %v (a ghost reservation)", err)
			}
			_ = r.Release(ctx)
			for i := range 5 {
				if err := bud.Charge(ctx, "a", ratelimit.Usage{}); err != nil {
					t.Fatalf("charge %d of 5 after the stall: %v (denied calls were charged)", i+1, err)
				}
			}
		})
	}
}

// TestServerClockMakesReplicasAgree (issue 17 fault 6): with ServerClock,
// two replicas whose clocks disagree by two hours share one 1/hour bucket;
// with the callers' clocks the skewed replica would find it full again.
func TestServerClockMakesReplicasAgree(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := ratelimit.MustParseRate("1/hour")
	a := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{ServerClock: true})
	b := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{ServerClock: true})
	now := time.Now()
	if res, err := a.Take(ctx, "k", r, now); err != nil || !res.Allowed {
		t.Fatalf("replica a: %+v, %v", res, err)
	}
	if res, err := b.Take(ctx, "k", r, now.Add(2*time.Hour)); err != nil || res.Allowed {
		t.Fatalf("replica b, clock 2h ahead: %+v, %v; want denied (server clock)", res, err)
	}
	// Near miss: without ServerClock the callers' clocks rule.
	cc := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "caller:"})
	if res, _ := cc.Take(ctx, "k", r, now); !res.Allowed {
		t.Fatal("caller clock: first take denied")
	}
	if res, _ := cc.Take(ctx, "k", r, now.Add(2*time.Hour)); !res.Allowed {
		t.Fatal("caller clock: take two hours later denied")
	}
}

// TestReplicasRaceExact: two replicas (two clients, two stores, default
// options and default go-redis pool) on one Redis, 1,000 concurrent calls
// each time: exactly 1 wins a step, exactly 100 pass a 100/hour budget,
// exactly 10 pass 10/minute, and none is refused as unavailable (issue 17
// fault 7: a healthy burst on default settings is not an outage).
func TestReplicasRaceExact(t *testing.T) {
	srv := redistest.Start(t)
	var reps [2]victim
	for i := range reps {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
		t.Cleanup(func() { c.Close() })
		reps[i] = newVictim(t, newStore(t, c, nil))
	}
	ctx := context.Background()
	race := func(name string, want int, call func(v victim) (bool, error)) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		start := make(chan struct{})
		for i := range 1000 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := call(reps[i%2])
				mu.Lock()
				defer mu.Unlock()
				if err != nil && (errors.Is(err, ratelimit.ErrUnavailable) || errors.Is(err, ratelimit.ErrCapacity)) {
					t.Errorf("%s: %v", name, err)
				}
				if ok {
					won++
				}
			}()
		}
		close(start)
		wg.Wait()
		if won != want {
			t.Errorf("%s: %d of 1,000 passed, want exactly %d", name, won, want)
		}
	}
	race("step", 1, func(v victim) (bool, error) {
		r, err := v.guard.Begin(ctx, stepOf("a", "conv", 1))
		if err != nil {
			return false, err
		}
		return r.Commit(ctx) == nil, nil
	})
	race("budget 100/hour", 100, func(v victim) (bool, error) {
		err := v.bud.Charge(ctx, "a", ratelimit.Usage{})
		var be *ratelimit.BudgetError
		if errors.As(err, &be) {
			return false, nil
		}
		return err == nil, err
	})
	race("rate 10/minute", 10, func(v victim) (bool, error) {
		res, err := v.lim.Allow(ctx, "a")
		return err == nil && res.Allowed, err
	})
}

// TestConversationFloodOfOneAgent (issue 17 fault 2, Redis): one agent's
// flood of conversations exhausts only its own share
// (MaxConversationsPerOwner, refused with a capacity reason); other agents
// still start conversations, and the flooder's committed steps stay
// committed. 20,000 conversations against a cap of 1,000 (the in-memory
// test floods 200k; over Redis that takes about 7 s, several times that
// under -race on two cores).
func TestConversationFloodOfOneAgent(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{MaxConversationsPerOwner: 1000})
	g, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	ctx := context.Background()
	refused := 0
	for i := range 20_000 {
		r, err := g.Begin(ctx, ratelimit.Action{Agent: "flooder", ConversationID: fmt.Sprint(i), Step: 1, Tool: "t"})
		if err != nil {
			var ce *ratelimit.CapacityError
			if !errors.As(err, &ce) || ce.Cap != "redisstore Options.MaxConversationsPerOwner" {
				t.Fatalf("conversation %d: %v, want a CapacityError naming MaxConversationsPerOwner", i, err)
			}
			refused++
			continue
		}
		if err := r.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if refused != 19_000 {
		t.Errorf("%d of 20,000 refused, want the 19,000 past the cap", refused)
	}
	r, err := g.Begin(ctx, ratelimit.Action{Agent: "fresh", ConversationID: "c", Step: 1, Tool: "t"})
	if err != nil {
		t.Fatalf("fresh agent after the flood: %v", err)
	}
	_ = r.Release(ctx)
	if _, err := g.Begin(ctx, ratelimit.Action{Agent: "flooder", ConversationID: "7", Step: 1, Tool: "t"}); !errors.Is(err, ratelimit.ErrReplay) {
		t.Fatalf("replay of the flooder's committed step: %v, want ErrReplay", err)
	}
}

// TestQueueIsCapacityNotOutage (issue 17 fault 7): a call waiting for one
// of MaxConcurrent slots does not spend its Timeout while it waits, and one
// that waits past QueueTimeout is refused as capacity, never as unavailable.
func TestQueueIsCapacityNotOutage(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := ratelimit.MustParseRate("1000/second")
	t.Run("WaitIsNotTimeout", func(t *testing.T) {
		s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "wait:", MaxConcurrent: 1, Timeout: 500 * time.Millisecond})
		srv.Pause()
		first, second := make(chan error, 1), make(chan error, 1)
		go func() { _, err := s.Take(ctx, "a", r, time.Now()); first <- err }()
		time.Sleep(20 * time.Millisecond)
		go func() { _, err := s.Take(ctx, "b", r, time.Now()); second <- err }()
		time.Sleep(650 * time.Millisecond)
		srv.Resume()
		// The first call times out at 500ms; the second, waiting for its
		// slot until then, has its whole 500ms after it and is answered once
		// Redis resumes at 650ms. Counting the wait, it would have failed at
		// 520ms.
		if err := <-first; !errors.Is(err, ratelimit.ErrUnavailable) {
			t.Errorf("call stuck on the paused Redis: %v, want ErrUnavailable", err)
		}
		if err := <-second; err != nil {
			t.Errorf("call that waited for the slot: %v, want success", err)
		}
	})
	t.Run("QueueFull", func(t *testing.T) {
		s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "full:", MaxConcurrent: 1, QueueTimeout: 50 * time.Millisecond, Timeout: time.Second})
		srv.Pause()
		done := make(chan error, 1)
		go func() { _, err := s.Take(ctx, "a", r, time.Now()); done <- err }()
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		_, err := s.Take(ctx, "b", r, time.Now())
		waited := time.Since(start)
		srv.Resume()
		var ce *ratelimit.CapacityError
		if !errors.As(err, &ce) || ce.Cap != "redisstore Options.MaxConcurrent" || errors.Is(err, ratelimit.ErrUnavailable) {
			t.Fatalf("call past QueueTimeout: %v, want a CapacityError naming MaxConcurrent", err)
		}
		if waited > 500*time.Millisecond {
			t.Errorf("refused after %v, want about QueueTimeout (50ms)", waited)
		}
		if err := <-done; err != nil {
			t.Errorf("the call holding the slot: %v", err)
		}
	})
}

// TestNowIsTakenAfterTheWait (issue 17 fault 6): a check that waits for a
// connection is judged at the time it runs, not at the time it was stamped
// before the wait: stamped 50ms after an exhausted 1/second bucket, it runs
// 1.3s later, when a token is back, and is allowed.
func TestNowIsTakenAfterTheWait(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	s := newStore(t, c, &redisstore.Options{Timeout: 3 * time.Second})
	ctx := context.Background()
	r := ratelimit.MustParseRate("1/second")
	t0 := time.Now()
	if res, err := s.Take(ctx, "k", r, t0); err != nil || !res.Allowed {
		t.Fatal(res, err)
	}
	srv.Pause()
	go func() { _, _ = s.Take(ctx, "other", r, time.Now()) }() // holds the one connection
	time.Sleep(50 * time.Millisecond)
	done := make(chan ratelimit.Result, 1)
	go func() {
		res, err := s.Take(ctx, "k", r, time.Now()) // stamped at about t0+50ms
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(time.Until(t0.Add(1300 * time.Millisecond)))
	srv.Resume()
	if res := <-done; !res.Allowed {
		t.Fatalf("check stamped before a 1.25s wait for a connection: %+v, want allowed (a token was back when it ran)", res)
	}
}
