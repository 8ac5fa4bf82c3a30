package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// TestCancelledCommitLeavesStepRetryable: a Commit whose context is
// already cancelled or past its deadline (the client sent
// notifications/cancelled, or its HTTP request ended, between the charge
// and the commit) fails and the call is denied. The step was not
// consumed, so it must be free again at once: the Reservation's own
// release must not use the dead context (go-redis refuses to send
// anything then), or the step stays reserved for ReservationTTL and
// every retry is refused as "already being decided" (issue 17 fault 3,
// by cancellation instead of a stall).
func TestCancelledCommitLeavesStepRetryable(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv.Addr()), nil)
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	dead := map[string]func() context.Context{
		"cancelled": func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		},
		"deadline passed": func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			t.Cleanup(cancel)
			return ctx
		},
	}
	for name, ctxOf := range dead {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			a := stepOf("agent", "conv-"+name, 1)
			r, err := g.Begin(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Commit(ctxOf()); err == nil {
				t.Fatal("commit with a dead context succeeded; the test needs it to fail")
			}
			// The pipeline's undo releases with a live context: a no-op
			// after Commit, so it cannot repair what Commit left.
			if err := r.Release(ctx); err != nil {
				t.Fatal(err)
			}
			r2, err := g.Begin(ctx, a)
			var le *ratelimit.Error
			if errors.As(err, &le) {
				t.Fatalf("retry of step 1 after a commit refused for a dead context: %v (the step stays reserved for %v)", err, g.ReservationTTL())
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := r2.Commit(ctx); err != nil {
				t.Fatalf("retry commit: %v", err)
			}
			// Near miss: a committed step is still a replay.
			if _, err := g.Begin(ctx, a); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
				t.Fatalf("replay of committed step 1: %v, want %s", err, ratelimit.CodeReplay)
			}
		})
	}
}
