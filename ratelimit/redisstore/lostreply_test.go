package redisstore_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

// lateConn delays the next reply it reads by lag, once, when armed: a
// network hiccup on the way back from a healthy Redis.
type lateConn struct {
	net.Conn
	armed *atomic.Bool
	lag   time.Duration
}

func (c lateConn) Read(b []byte) (int, error) {
	if c.armed.CompareAndSwap(true, false) {
		time.Sleep(c.lag)
	}
	return c.Conn.Read(b)
}

// lateStore is a store, with a Timeout of 200ms, on a real Redis whose
// connections delay the next reply by 400ms once armed is set;
// maxRetries is go-redis's (0: its default of 3 retries, as a deployment
// has it; -1: none).
func lateStore(t *testing.T, armed *atomic.Bool, prefix string, maxRetries int) *redisstore.Store {
	t.Helper()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: maxRetries,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return lateConn{conn, armed, 400 * time.Millisecond}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	return newStore(t, c, &redisstore.Options{Prefix: prefix, Timeout: 200 * time.Millisecond})
}

// TestLostReserveReplyLeavesNoGhost (issue 17 fault 3, by the network):
// Redis ran a step's reservation in time, so the script's deadline check
// passed, but its reply came back after the caller's Timeout. The call
// was denied as unavailable, and the step stayed reserved for the
// reservation's minute: every retry was refused as "already being
// decided". The store knows the token it sent, so it drops the
// reservation when the reply is lost.
func TestLostReserveReplyLeavesNoGhost(t *testing.T) {
	var armed atomic.Bool
	s := lateStore(t, &armed, "late:", -1)
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := g.Begin(ctx, stepOf("agent", "c", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	if _, err := g.Begin(ctx, stepOf("agent", "c", 2)); !errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("a reservation whose reply came late: %v, want ErrUnavailable", err)
	}
	r, err = g.Begin(ctx, stepOf("agent", "c", 2))
	if err != nil {
		t.Fatalf("retry of step 2 after its reply was lost: %v", err)
	}
	// Near miss: a live reservation still holds the step.
	var le *ratelimit.Error
	if _, err := g.Begin(ctx, stepOf("agent", "c", 2)); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
		t.Fatalf("step 2 while reserved: %v, want %s", err, ratelimit.CodeReplay)
	}
	if err := r.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestLostCommitReplyIsKnown: a commit Redis ran whose reply came back
// after the Timeout failed, so the call was denied, yet its step was
// consumed: the retry of the step was refused as a replay, a denied call
// that consumed a step (DESIGN §3 item 16). The store now asks whether
// the commit landed, so the call goes on; a commit that did not land
// still fails and leaves the step free.
func TestLostCommitReplyIsKnown(t *testing.T) {
	var armed atomic.Bool
	s := lateStore(t, &armed, "latecommit:", -1)
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for step := int64(1); step <= 2; step++ {
		r, err := g.Begin(ctx, stepOf("agent", "c", step))
		if err != nil {
			t.Fatal(err)
		}
		// Step 1 loads the script into Redis (a late NOSCRIPT reply would
		// keep the commit from running at all); step 2's reply is late.
		armed.Store(step == 2)
		if err := r.Commit(ctx); err != nil {
			t.Fatalf("a commit that landed but whose reply came late: %v", err)
		}
	}
	var le *ratelimit.Error
	if _, err := g.Begin(ctx, stepOf("agent", "c", 2)); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
		t.Fatalf("step 2 after its commit: %v, want a replay", err)
	}
	// Near miss: a commit that never reached Redis (a cancelled context)
	// fails and leaves the step free.
	r, err := g.Begin(ctx, stepOf("agent", "c", 3))
	if err != nil {
		t.Fatal(err)
	}
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if err := r.Commit(dead); err == nil {
		t.Fatal("a commit with a cancelled context succeeded")
	}
	if _, err := g.Begin(ctx, stepOf("agent", "c", 3)); err != nil {
		t.Fatalf("step 3 after a commit that did not land: %v", err)
	}
}

// TestLostChargeReplyIsTakenBack: a budget charge Redis ran in time whose
// reply came back after the Timeout. The call was denied as unavailable
// and the charge stood: a flaky network spent an agent's budget on calls
// that never ran (QWED §9.5: a denied call consumes nothing). The store
// takes the charge back by its receipt; a charge that never reached
// Redis takes nothing back, and a check or refund leaves no receipt.
func TestLostChargeReplyIsTakenBack(t *testing.T) {
	var armed atomic.Bool
	s := lateStore(t, &armed, "latecharge:", -1)
	ctx := context.Background()
	now := time.Now()
	counters := func(add int64) []ratelimit.Counter {
		return []ratelimit.Counter{{Name: "requests", Add: add, Max: 10, TTL: time.Hour}, {Name: "cost", Add: 5 * add, Max: 1000, TTL: time.Hour}}
	}
	values := func() []int64 {
		t.Helper()
		res, err := s.Spend(ctx, "agent", counters(0), ratelimit.SpendCheck, now)
		if err != nil {
			t.Fatal(err)
		}
		return res.Values
	}
	// The first charge loads the script (a late NOSCRIPT reply would keep
	// the charge from running at all).
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); !errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("a charge whose reply came late: %v, want ErrUnavailable", err)
	}
	if got := values(); !slices.Equal(got, []int64{1, 5}) {
		t.Fatalf("counters after a charge whose reply was lost: %v, want the first charge's [1 5] only", got)
	}
	// Near miss: a charge that never reached Redis takes nothing back.
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Spend(dead, "agent", counters(1), ratelimit.SpendCommit, now); err == nil {
		t.Fatal("a charge with a cancelled context succeeded")
	}
	if got := values(); !slices.Equal(got, []int64{1, 5}) {
		t.Fatalf("counters after a charge that was not sent: %v, want [1 5]", got)
	}
	// Near miss: the charge that landed and was answered stands.
	if _, err := s.Spend(ctx, "agent", counters(2), ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	if got := values(); !slices.Equal(got, []int64{3, 15}) {
		t.Fatalf("counters after an answered charge: %v, want [3 15]", got)
	}
}
