package redisgrant_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// A grant use Redis took whose reply came back after the Timeout, on a
// client with go-redis's default retries (MaxRetries 3): go-redis
// retries the read timeout, its backoff finds the context done, and the
// error is context.DeadlineExceeded, which the store read as "nothing
// was sent" (redisx.ReplyLost). The human was asked again and the use stayed taken (red
// team rtp): the undo only worked with MaxRetries -1.
func TestRedteamLateConsumeReplyWithRetries(t *testing.T) {
	s, armed := lateStore(t, 0)
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	q := granttest.Query("user:alice")
	if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != 2 {
		t.Fatalf("first use: %+v %v", u, err)
	}
	armed.Store(true)
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrUnavailable) {
		t.Fatalf("a use whose reply came late: %v, want ErrUnavailable", err)
	}
	for want := 1; want >= 0; want-- {
		if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != want {
			t.Fatalf("use with %d to be left, after a use whose reply came late: %+v %v", want, u, err)
		}
	}
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a fourth use: %v, want ErrNoGrant", err)
	}
}

// holdStore is a Store with a Timeout of 200ms (receipts live 1.4s) on a
// go-redis client with its default retries, through a HoldProxy.
func holdStore(t *testing.T, hold time.Duration, reset bool) (*redisgrant.Store, *redistest.HoldProxy) {
	t.Helper()
	srv := redistest.Start(t)
	p := redistest.NewHoldProxy(t, srv.Addr(), hold, reset)
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{Timeout: 200 * time.Millisecond, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// usesLeft is what List reports left of the principal's one grant; 0
// when it is spent (List shows live grants only).
func usesLeft(t *testing.T, s *redisgrant.Store, principal string, now time.Time) int {
	t.Helper()
	live, _, err := s.List(context.Background(), principal, now)
	if err != nil || len(live) > 1 {
		t.Fatalf("list: %v %v", live, err)
	}
	if len(live) == 0 {
		return 0
	}
	return live[0].Left
}

// A grant use held on its way to Redis for longer than its receipt lives
// (twice the Timeout and a second): the consume timed out, the store gave
// the use back and left the receipt undone for 1.4s, and then the held
// consume reached Redis, found no receipt and took a use for a call the
// guard had already asked the human about again. The consume scripts
// carry no deadline (red team rtp). A receipt now lives as long as its
// grant can be used.
func TestRedteamHeldConsumeAfterItsUndo(t *testing.T) {
	s, p := holdStore(t, 2*time.Second, false)
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	q := granttest.Query("user:alice")
	if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != 2 {
		t.Fatalf("first use: %+v %v", u, err)
	}
	p.Armed.Store(true)
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrUnavailable) {
		t.Fatalf("a use held on its way: %v, want ErrUnavailable", err)
	}
	time.Sleep(2500 * time.Millisecond) // the held consume lands
	if n := usesLeft(t, s, "user:alice", now); n != 2 {
		t.Fatalf("%d uses left after a use that failed and landed late, want 2", n)
	}
	// Near miss: the two uses left are two calls, and no more.
	for want := 1; want >= 0; want-- {
		if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != want {
			t.Fatalf("use with %d to be left: %+v %v", want, u, err)
		}
	}
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a fourth use: %v, want ErrNoGrant", err)
	}
}

// The same for a refund: its first copy, held while the connection
// reset, landed after the resend's receipt expired and gave the use back
// a second time (red team rtp).
func TestRedteamHeldRefundAfterItsResend(t *testing.T) {
	s, p := holdStore(t, 2*time.Second, true)
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	q := granttest.Query("user:alice")
	var u grant.Use
	for want := 2; want >= 1; want-- {
		var err error
		if u, err = s.Consume(ctx, q, now); err != nil || u.Grant.Left != want {
			t.Fatalf("use with %d to be left: %+v %v", want, u, err)
		}
	}
	p.Armed.Store(true)
	want := 2
	if err := s.Refund(ctx, u.Grant, now); err != nil {
		want = 1 // failed: it may have given nothing back
		t.Logf("a refund whose connection reset: %v", err)
	}
	time.Sleep(2500 * time.Millisecond) // the held copy lands
	if n := usesLeft(t, s, "user:alice", now); n > want {
		t.Fatalf("%d uses left after one refund sent twice, want %d", n, want)
	}
	// Near miss: an answered refund counts.
	if err := s.Refund(ctx, u.Grant, now); err != nil {
		t.Fatal(err)
	}
	if n := usesLeft(t, s, "user:alice", now); n != want+1 {
		t.Fatalf("%d uses left after another refund, want %d", n, want+1)
	}
}

// The first copy of a use held on its way while the connection reset:
// go-redis sent it again on a new connection, that copy took the use and
// was answered, and the first copy reached Redis after the receipt had
// expired and took a second use: one call, two uses (red team rtp).
func TestRedteamHeldConsumeAfterItsResend(t *testing.T) {
	s, p := holdStore(t, 2*time.Second, true)
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	q := granttest.Query("user:alice")
	if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != 2 {
		t.Fatalf("first use: %+v %v", u, err)
	}
	p.Armed.Store(true)
	want := 1
	if u, err := s.Consume(ctx, q, now); err != nil {
		want = 2 // denied: it must have taken nothing
		t.Logf("a use whose connection reset: %v", err)
	} else if u.Grant.Left != 1 {
		t.Fatalf("a use whose connection reset: %+v, want 1 left", u)
	}
	time.Sleep(2500 * time.Millisecond) // the held copy lands
	if n := usesLeft(t, s, "user:alice", now); n != want {
		t.Fatalf("%d uses left after one use sent twice, want %d", n, want)
	}
}
