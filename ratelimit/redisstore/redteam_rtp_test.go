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

// A charge Redis ran whose reply came back after the Timeout, on a client
// with go-redis's default retries: go-redis retries the read timeout, its
// backoff finds the context done, and the error it returns is
// context.DeadlineExceeded, which the store read as "nothing was sent".
// The call was denied and the charge stood (red team rtp): the lost-reply
// undo only worked with MaxRetries -1. Every error of a sent script now
// counts as one that may have run.
func TestRedteamLateChargeReplyWithRetries(t *testing.T) {
	var armed atomic.Bool
	s := lateStore(t, &armed, "dlatecharge:", 0)
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
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); !errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("a charge whose reply came late: %v, want ErrUnavailable", err)
	}
	if got := values(); !slices.Equal(got, []int64{1, 5}) {
		t.Fatalf("counters after a denied charge whose reply came late: %v, want [1 5] (taken back)", got)
	}
	// Near miss: a charge with a context already cancelled is not sent and
	// changes nothing; the next answered charge counts.
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Spend(dead, "agent", counters(1), ratelimit.SpendCommit, now); err == nil {
		t.Fatal("a charge with a cancelled context succeeded")
	}
	if _, err := s.Spend(ctx, "agent", counters(2), ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	if got := values(); !slices.Equal(got, []int64{3, 15}) {
		t.Fatalf("counters after an answered charge: %v, want [3 15]", got)
	}
}

// The same for a step: a reservation whose reply came late stayed
// reserved for ReservationTTL (every retry "already being decided"), and
// a commit whose reply came late was denied with its step consumed (its
// retry refused as a replay) (red team rtp).
func TestRedteamLateStepReplyWithRetries(t *testing.T) {
	var armed atomic.Bool
	s := lateStore(t, &armed, "dlatestep:", 0)
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
		t.Fatalf("step 2 after its reservation's reply came late: %v", err)
	}
	armed.Store(true)
	if err := r.Commit(ctx); err != nil {
		t.Fatalf("a commit that landed but whose reply came late: %v", err)
	}
	var le *ratelimit.Error
	if _, err := g.Begin(ctx, stepOf("agent", "c", 2)); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
		t.Fatalf("step 2 after its commit: %v, want a replay", err)
	}
}

// Two steps of one conversation in flight at once (an agent's parallel
// tool calls), on two replicas: step 2's commit landed and its
// connection reset, and step 3's commit landed on the other replica
// before go-redis resent step 2's. The conversation's one "last commit"
// field then named step 3, so the resend answered "lost", the store's
// check of whether the commit landed said no, and step 2 was denied with
// its step consumed: its retry was refused as a replay (red team rtp).
// Each commit now leaves its token on its own step for a few seconds.
func TestRedteamRetriedCommitBesideAnother(t *testing.T) {
	srv := redistest.Start(t)
	var armed, between atomic.Bool
	var r3 *ratelimit.Reservation
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if between.CompareAndSwap(true, false) {
				// Before go-redis's resend: the other replica commits step 3.
				if err := r3.Commit(context.Background()); err != nil {
					return nil, err
				}
			}
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return droppedConn{conn, &armed}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	s := newStore(t, c, &redisstore.Options{Prefix: "beside:", Timeout: 2 * time.Second})
	other := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Prefix: "beside:", Timeout: 2 * time.Second})
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	og, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: other})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r1, err := g.Begin(ctx, stepOf("agent", "c", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := r1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r2, err := g.Begin(ctx, stepOf("agent", "c", 2))
	if err != nil {
		t.Fatal(err)
	}
	if r3, err = og.Begin(ctx, stepOf("agent", "c", 3)); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	between.Store(true)
	if err := r2.Commit(ctx); err != nil {
		t.Fatalf("step 2's commit, resent after its connection reset beside step 3's: %v", err)
	}
	if between.Load() {
		t.Fatal("go-redis did not resend the commit")
	}
	var le *ratelimit.Error
	for _, step := range []int64{2, 3} {
		if _, err := g.Begin(ctx, stepOf("agent", "c", step)); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
			t.Fatalf("step %d after its commit: %v, want a replay", step, err)
		}
	}
	// Near miss: the next step goes on.
	r4, err := g.Begin(ctx, stepOf("agent", "c", 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := r4.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}
