package ratelimit_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

func newGuard(t *testing.T, o *ratelimit.GuardOptions) *ratelimit.Guard {
	t.Helper()
	g, err := ratelimit.NewGuard(o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func act(step int64, tool string, args any) ratelimit.Action {
	return ratelimit.Action{Agent: "agent-1", ConversationID: "conv-1", Step: step, Tool: tool, Args: args}
}

// wantCode checks a denial's code, sentinel and message shape.
func wantCode(t *testing.T, err error, code ratelimit.Code, sentinel error, reasonPart string) {
	t.Helper()
	var e *ratelimit.Error
	if !errors.As(err, &e) || e.Code != code || !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want code %s", err, code)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "ratelimit: ") || !strings.Contains(msg, reasonPart) || !strings.HasSuffix(msg, "("+string(code)+")") {
		t.Fatalf("message %q: want prefix, %q and the code", msg, reasonPart)
	}
}

func begin(t *testing.T, g *ratelimit.Guard, a ratelimit.Action) *ratelimit.Reservation {
	t.Helper()
	r, err := g.Begin(context.Background(), a)
	if err != nil {
		t.Fatalf("Begin(step %d): %v", a.Step, err)
	}
	return r
}

func commit(t *testing.T, r *ratelimit.Reservation) {
	t.Helper()
	if err := r.Commit(context.Background()); err != nil {
		t.Fatalf("Commit(step %d): %v", r.Step(), err)
	}
}

// One test per deny reason of QWED §9.1-9.4.
func TestGuardDenials(t *testing.T) {
	ctx := context.Background()
	t.Run("CTX-001 no conversation", func(t *testing.T) {
		g := newGuard(t, nil)
		_, err := g.Begin(ctx, ratelimit.Action{Agent: "a", Step: 1, Tool: "t"})
		wantCode(t, err, ratelimit.CodeContextMissing, ratelimit.ErrContextMissing, "conversation_id")
		_, err = g.Begin(ctx, ratelimit.Action{Agent: "a", ConversationID: strings.Repeat("c", 257), Step: 1, Tool: "t"})
		wantCode(t, err, ratelimit.CodeContextMissing, ratelimit.ErrContextMissing, "257 bytes")
	})
	t.Run("CTX-002 bad step", func(t *testing.T) {
		g := newGuard(t, nil)
		for _, step := range []int64{0, -1, math.MinInt64} {
			_, err := g.Begin(ctx, act(step, "t", nil))
			wantCode(t, err, ratelimit.CodeStepInvalid, ratelimit.ErrStepInvalid, ">= 1")
		}
	})
	t.Run("LOOP-001 step limit", func(t *testing.T) {
		g := newGuard(t, nil)
		commit(t, begin(t, g, act(50, "t", nil)))
		_, err := g.Begin(ctx, act(51, "t", nil))
		wantCode(t, err, ratelimit.CodeStepLimit, ratelimit.ErrStepLimit, "limit of 50 steps")
		small := newGuard(t, &ratelimit.GuardOptions{MaxSteps: 3})
		_, err = small.Begin(ctx, act(4, "t", nil))
		wantCode(t, err, ratelimit.CodeStepLimit, ratelimit.ErrStepLimit, "limit of 3 steps")
	})
	t.Run("LOOP-002 replay", func(t *testing.T) {
		g := newGuard(t, nil)
		commit(t, begin(t, g, act(1, "t", 1)))
		commit(t, begin(t, g, act(2, "t", 2)))
		for _, step := range []int64{1, 2} {
			_, err := g.Begin(ctx, act(step, "t", 3))
			wantCode(t, err, ratelimit.CodeReplay, ratelimit.ErrReplay, "send step 3 or later")
		}
		// Another agent or conversation has its own steps.
		other := act(1, "t", 1)
		other.Agent = "agent-2"
		commit(t, begin(t, g, other))
		other.Agent, other.ConversationID = "agent-1", "conv-2"
		commit(t, begin(t, g, other))
	})
	t.Run("LOOP-002 in flight", func(t *testing.T) {
		g := newGuard(t, nil)
		r := begin(t, g, act(1, "t", 1))
		_, err := g.Begin(ctx, act(1, "t", 2))
		wantCode(t, err, ratelimit.CodeReplay, ratelimit.ErrReplay, "already being decided")
		commit(t, r)
	})
	t.Run("LOOP-003 repetition", func(t *testing.T) {
		g := newGuard(t, nil)
		args := map[string]any{"q": "select 1", "n": 1.0}
		commit(t, begin(t, g, act(1, "sql", args)))
		// Same JSON, other key order and number spelling: same action.
		commit(t, begin(t, g, act(2, "sql", map[string]any{"n": 1, "q": "select 1"})))
		_, err := g.Begin(ctx, act(3, "sql", args))
		wantCode(t, err, ratelimit.CodeRepetitive, ratelimit.ErrRepetitive, "2 times in a row")
		// The step was not consumed: a different action at step 3 passes.
		commit(t, begin(t, g, act(3, "sql", map[string]any{"q": "select 2"})))
		commit(t, begin(t, g, act(4, "sql", args)))
	})
	t.Run("action not JSON", func(t *testing.T) {
		g := newGuard(t, nil)
		_, err := g.Begin(ctx, act(1, "t", map[string]any{"x": math.NaN()}))
		wantCode(t, err, ratelimit.CodeActionInvalid, ratelimit.ErrActionInvalid, "arguments.x is a non-finite number")
		_, err = g.Begin(ctx, act(1, "t", map[int]any{1: "a"}))
		wantCode(t, err, ratelimit.CodeActionInvalid, ratelimit.ErrActionInvalid, "non-string keys")
		// Nothing was reserved by the denials.
		commit(t, begin(t, g, act(1, "t", nil)))
	})
}

func TestGuardReleaseAllowsRetry(t *testing.T) {
	ctx := context.Background()
	g := newGuard(t, nil)
	r := begin(t, g, act(1, "t", "a"))
	if err := r.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx); !errors.Is(err, ratelimit.ErrReservationLost) {
		t.Fatalf("Commit after Release = %v, want ErrReservationLost", err)
	}
	r = begin(t, g, act(1, "t", "b"))
	commit(t, r)
	if err := r.Release(ctx); err != nil {
		t.Fatalf("Release after Commit = %v, want nil (no-op)", err)
	}
	if _, err := g.Begin(ctx, act(1, "t", "c")); !errors.Is(err, ratelimit.ErrReplay) {
		t.Fatalf("step 1 after commit + release: %v, want still consumed", err)
	}
}

// TestGuardBudgetDenialReleasesStep is the flow of QWED §9.5: a budget
// denial releases the step, which is retried once the budget resets.
func TestGuardBudgetDenialReleasesStep(t *testing.T) {
	ctx := context.Background()
	c := &clock{now: time.Date(2026, 5, 1, 10, 59, 0, 0, time.UTC)}
	store := newMemory(t)
	g := newGuard(t, &ratelimit.GuardOptions{Store: store, Now: c.Now})
	b, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 1}, &ratelimit.BudgetOptions{Store: store, Now: c.Now})
	decide := func(step int64) error {
		r, err := g.Begin(ctx, act(step, "t", step))
		if err != nil {
			return err
		}
		defer r.Release(ctx)
		if err := b.Charge(ctx, "agent-1", ratelimit.Usage{}); err != nil {
			return err
		}
		return r.Commit(ctx)
	}
	if err := decide(1); err != nil {
		t.Fatal(err)
	}
	if err := decide(2); !errors.Is(err, ratelimit.ErrBudgetRequests) {
		t.Fatalf("step 2: %v, want BUDGET-002", err)
	}
	c.Add(time.Minute) // the hour resets
	if err := decide(2); err != nil {
		t.Fatalf("step 2 retried after the reset: %v", err)
	}
}

func TestGuardReservationExpires(t *testing.T) {
	ctx := context.Background()
	c := &clock{now: t0}
	g := newGuard(t, &ratelimit.GuardOptions{Now: c.Now, ReservationTTL: 10 * time.Second})
	r := begin(t, g, act(1, "t", nil))
	c.Add(10 * time.Second)
	if err := r.Commit(ctx); !errors.Is(err, ratelimit.ErrReservationLost) {
		t.Fatalf("Commit after the TTL = %v, want ErrReservationLost", err)
	}
	commit(t, begin(t, g, act(1, "t", nil)))
}

func TestGuardConversationTTL(t *testing.T) {
	c := &clock{now: t0}
	g := newGuard(t, &ratelimit.GuardOptions{Now: c.Now, ConversationTTL: time.Hour})
	commit(t, begin(t, g, act(5, "t", nil)))
	c.Add(59 * time.Minute)
	if _, err := g.Begin(context.Background(), act(5, "t", nil)); !errors.Is(err, ratelimit.ErrReplay) {
		t.Fatalf("replay within the TTL: %v", err)
	}
	c.Add(time.Hour)
	// Documented: an idle conversation's state is dropped after the TTL.
	commit(t, begin(t, g, act(1, "t", nil)))
}

// TestGuardRaceForOneStep: 1,000 goroutines Begin the same step in memory;
// exactly one wins, and every loser gets LOOP-002.
func TestGuardRaceForOneStep(t *testing.T) {
	g := newGuard(t, nil)
	var won, replay atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := g.Begin(context.Background(), act(7, "t", i))
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, ratelimit.ErrReplay):
				replay.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if won.Load() != 1 || replay.Load() != 999 {
		t.Fatalf("%d won and %d got LOOP-002; want 1 and 999", won.Load(), replay.Load())
	}
}

type brokenSteps struct{ ratelimit.StepStore }

func (brokenSteps) Reserve(context.Context, string, int64, ratelimit.Fingerprint, ratelimit.StepParams, time.Time) (ratelimit.StepResult, error) {
	return ratelimit.StepResult{Status: ratelimit.StepOK}, nil // no token
}

type errSteps struct{ ratelimit.StepStore }

func (errSteps) Reserve(context.Context, string, int64, ratelimit.Fingerprint, ratelimit.StepParams, time.Time) (ratelimit.StepResult, error) {
	return ratelimit.StepResult{}, errDown
}

func TestGuardFailsClosed(t *testing.T) {
	for name, s := range map[string]ratelimit.StepStore{"no token": brokenSteps{}, "error": errSteps{}} {
		g := newGuard(t, &ratelimit.GuardOptions{Store: s})
		if r, err := g.Begin(context.Background(), act(1, "t", nil)); err == nil || r != nil {
			t.Errorf("%s: Begin = %v, %v; want a denial", name, r, err)
		}
	}
}

func TestNewGuardRejectsNegativeOptions(t *testing.T) {
	for _, o := range []ratelimit.GuardOptions{{MaxSteps: -1}, {MaxRepeats: -1}, {ReservationTTL: -1}, {ConversationTTL: -1}} {
		if _, err := ratelimit.NewGuard(&o); !errors.Is(err, ratelimit.ErrInvalidOptions) {
			t.Errorf("NewGuard(%+v) = %v, want ErrInvalidOptions", o, err)
		}
	}
}
