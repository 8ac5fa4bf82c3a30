package redisstore_test

import (
	"context"
	"errors"
	"io"
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

// droppedConn, once armed, reads the next reply and drops it: the
// connection resets after Redis ran the command.
type droppedConn struct {
	net.Conn
	armed *atomic.Bool
}

func (c droppedConn) Read(b []byte) (int, error) {
	if c.armed.CompareAndSwap(true, false) {
		if _, err := c.Conn.Read(b); err != nil {
			return 0, err
		}
		c.Conn.Close()
		return 0, io.EOF
	}
	return c.Conn.Read(b)
}

// droppingClient is a go-redis client with its default retries (a command
// whose connection reset is sent again on a new one) on a real Redis.
func droppingClient(t *testing.T, armed *atomic.Bool) *redis.Client {
	t.Helper()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return droppedConn{conn, armed}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// A charge whose connection reset after Redis ran it is sent again by
// go-redis (MaxRetries defaults to 3) with the same receipt. The retry
// found the receipt and answered "taken back before it ran; nothing was
// changed", so the call was denied while the first charge stood: with
// the default client, the most common lost reply still spent the agent's
// budget on a call that did not run, and the reason said nothing had
// been charged (red team rto). The retry now answers as the charge
// that landed, once.
func TestRedteamRetriedChargeIsOnce(t *testing.T) {
	var armed atomic.Bool
	s := newStore(t, droppingClient(t, &armed), &redisstore.Options{Prefix: "retry:", Timeout: 2 * time.Second})
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
	res, err := s.Spend(ctx, "agent", counters(2), ratelimit.SpendCommit, now)
	got := values()
	switch {
	case err == nil && !slices.Equal(got, []int64{3, 15}):
		t.Fatalf("a retried charge that succeeded: counters %v, want [3 15] (charged once)", got)
	case err != nil && !slices.Equal(got, []int64{1, 5}):
		t.Fatalf("a retried charge that failed (%v): counters %v, want [1 5] (nothing charged)", err, got)
	case err == nil && (res.Failed != -1 || !slices.Equal(res.Values, []int64{1, 5})):
		t.Fatalf("a retried charge: %+v, want the values before it, [1 5]", res)
	}
	// Near miss: an over-budget charge whose reply reset is still refused.
	armed.Store(true)
	if res, err := s.Spend(ctx, "agent", counters(8), ratelimit.SpendCommit, now); err != nil || res.Failed != 0 {
		t.Fatalf("an over-budget charge, retried: %+v %v, want refused on requests", res, err)
	}
	if got := values(); !slices.Equal(got, []int64{3, 15}) {
		t.Fatalf("after a refused charge: %v, want [3 15]", got)
	}
}

// A step's reservation or commit whose connection reset after Redis ran
// it is sent again by go-redis with the same token. The retried
// reservation found its own reservation and answered "in flight": the
// call was denied and the step stayed reserved for ReservationTTL (issue
// 17 fault 3 again). The retried commit found no reservation (the first
// had consumed it) and failed: the call was denied with its step
// consumed, so its retry was refused as a replay (red team rto). Each
// script now knows its own token.
func TestRedteamRetriedStepIsOnce(t *testing.T) {
	var armed atomic.Bool
	s := newStore(t, droppingClient(t, &armed), &redisstore.Options{Prefix: "retrystep:", Timeout: 2 * time.Second})
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
	r, err = g.Begin(ctx, stepOf("agent", "c", 2))
	if err != nil {
		// Denied: it must leave no reservation behind.
		if r, err = g.Begin(ctx, stepOf("agent", "c", 2)); err != nil {
			t.Fatalf("step 2 after its retried reservation: %v", err)
		}
	}
	armed.Store(true)
	if err := r.Commit(ctx); err != nil {
		// Denied: it must not have consumed the step.
		if _, err2 := g.Begin(ctx, stepOf("agent", "c", 2)); err2 != nil {
			t.Fatalf("a retried commit failed (%v) and its step was consumed: %v", err, err2)
		}
		return
	}
	var le *ratelimit.Error
	if _, err := g.Begin(ctx, stepOf("agent", "c", 2)); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
		t.Fatalf("step 2 after its commit: %v, want a replay", err)
	}
	// Near miss: another caller's live reservation still holds a step.
	if _, err := g.Begin(ctx, stepOf("agent", "c", 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Begin(ctx, stepOf("agent", "c", 3)); !errors.As(err, &le) || le.Code != ratelimit.CodeReplay {
		t.Fatalf("step 3 while reserved: %v, want %s", err, ratelimit.CodeReplay)
	}
}

// A charge whose connection reset after Redis ran it, retried by go-redis
// so late that Redis refused the retry as past the caller's deadline: the
// answer was an error reply, read as "Redis did not run it", so the
// first charge stood while the call was denied (red team rto). An error
// reply may answer a retry, so the charge is taken back by its receipt.
func TestRedteamLateRetryOfAChargeIsTakenBack(t *testing.T) {
	var armed, slow atomic.Bool
	srv := redistest.Start(t)
	const timeout = 2 * time.Second
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if slow.CompareAndSwap(true, false) {
				time.Sleep(timeout * 93 / 100) // past the script's deadline (90%), before the caller's
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
	s := newStore(t, c, &redisstore.Options{Prefix: "lateretry:", Timeout: timeout})
	ctx := context.Background()
	now := time.Now()
	counters := func(add int64) []ratelimit.Counter {
		return []ratelimit.Counter{{Name: "requests", Add: add, Max: 10, TTL: time.Hour}}
	}
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	slow.Store(true)
	_, err := s.Spend(ctx, "agent", counters(2), ratelimit.SpendCommit, now)
	res, err2 := s.Spend(ctx, "agent", counters(0), ratelimit.SpendCheck, now)
	if err2 != nil {
		t.Fatal(err2)
	}
	want := int64(1)
	if err == nil {
		want = 3
	}
	if res.Values[0] != want {
		t.Fatalf("a charge retried late (%v): requests %d, want %d", err, res.Values[0], want)
	}
	t.Logf("retried late: %v", err)
}

// A refund or a forced charge whose connection reset after Redis ran it
// was applied twice by go-redis's resend: a refund gave back twice what
// the call had spent, and usage that happened once was charged twice
// (red team rto). Every write of a budget now leaves a receipt its
// resend finds.
func TestRedteamRetriedRefundIsOnce(t *testing.T) {
	var armed atomic.Bool
	s := newStore(t, droppingClient(t, &armed), &redisstore.Options{Prefix: "retryrefund:", Timeout: 2 * time.Second})
	ctx := context.Background()
	now := time.Now()
	counters := func(add int64) []ratelimit.Counter {
		return []ratelimit.Counter{{Name: "requests", Add: add, Max: 10, TTL: time.Hour}}
	}
	spend := func(add int64, mode ratelimit.SpendMode, drop bool) {
		t.Helper()
		armed.Store(drop)
		if _, err := s.Spend(ctx, "agent", counters(add), mode, now); err != nil {
			t.Logf("mode %v, dropped: %v", mode, err)
		}
	}
	value := func() int64 {
		t.Helper()
		res, err := s.Spend(ctx, "agent", counters(0), ratelimit.SpendCheck, now)
		if err != nil {
			t.Fatal(err)
		}
		return res.Values[0]
	}
	spend(6, ratelimit.SpendCommit, false)
	spend(2, ratelimit.SpendRefund, true)
	if got := value(); got != 4 {
		t.Fatalf("after a refund of 2 from 6, resent: %d, want 4", got)
	}
	spend(3, ratelimit.SpendForce, true)
	if got := value(); got != 7 {
		t.Fatalf("after a forced charge of 3 on 4, resent: %d, want 7", got)
	}
	// Near miss: answered refunds and forced charges each count.
	spend(1, ratelimit.SpendRefund, false)
	spend(1, ratelimit.SpendRefund, false)
	spend(2, ratelimit.SpendForce, false)
	if got := value(); got != 7 {
		t.Fatalf("after two refunds of 1 and a forced 2: %d, want 7", got)
	}
}
