package redisgrant_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// resetConn, once armed, lets the next script run and resets the
// connection instead of handing back its reply.
type resetConn struct {
	net.Conn
	armed, due *atomic.Bool
}

func (c resetConn) Write(b []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(b), []byte("evalsha")) && c.armed.CompareAndSwap(true, false) {
		c.due.Store(true)
	}
	return c.Conn.Write(b)
}

func (c resetConn) Read(b []byte) (int, error) {
	if c.due.CompareAndSwap(true, false) {
		if _, err := c.Conn.Read(b); err != nil {
			return 0, err
		}
		c.Conn.Close()
		return 0, io.EOF
	}
	return c.Conn.Read(b)
}

// resetStore is a store over a client with go-redis's default retries
// whose connection, once armed, is reset after the next EVALSHA has gone
// out, so go-redis sends it again on a new one.
func resetStore(t *testing.T) (*redisgrant.Store, *atomic.Bool) {
	t.Helper()
	srv := redistest.Start(t)
	armed := new(atomic.Bool)
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return resetConn{conn, armed, new(atomic.Bool)}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{Timeout: 2 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return s, armed
}

// A grant use whose connection reset after Redis took it is sent again by
// go-redis (MaxRetries defaults to 3) with the same receipt. The retry
// found the receipt and answered "gone": the use was taken and the
// guard asked the human again (ErrNoGrant), or took a use of the next
// grant that covered the call (red team rto). The retry is now answered
// as the use that was taken, once.
func TestRedteamRetriedConsumeIsOnce(t *testing.T) {
	s, armed := resetStore(t)
	ctx := context.Background()
	now := granttest.T0
	for _, uses := range []int{3, 5} {
		g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m", Duration: 15 * time.Minute, Uses: uses}, now)
		if _, err := s.Create(ctx, g, now); err != nil {
			t.Fatal(err)
		}
	}
	q := granttest.Query("user:alice")
	total := func() int {
		t.Helper()
		live, _, err := s.List(ctx, "user:alice", now)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, g := range live {
			n += g.Left
		}
		return n
	}
	if _, err := s.Consume(ctx, q, now); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	u, err := s.Consume(ctx, q, now)
	switch n := total(); {
	case err == nil && n != 6:
		t.Fatalf("a retried use answered %+v: %d uses left, want 6 (one taken)", u, n)
	case err != nil && n != 7:
		t.Fatalf("a retried use failed (%v): %d uses left, want 7 (none taken)", err, n)
	case errors.Is(err, grant.ErrNoGrant):
		t.Fatalf("a retried use: %v, with uses left", err)
	}
	// Near miss: the uses left are calls, and then no more.
	for range 6 {
		if _, err := s.Consume(ctx, q, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a use past the grants': %v, want ErrNoGrant", err)
	}
}

// A refund whose connection reset after Redis ran it was sent again by
// go-redis and gave a second use back: a call refused after it used a
// grant returned two uses (red team rto). A refund now leaves a receipt
// its resend finds.
func TestRedteamRetriedRefundIsOnce(t *testing.T) {
	s, armed := resetStore(t)
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	q := granttest.Query("user:alice")
	var u grant.Use
	var err error
	for range 3 {
		if u, err = s.Consume(ctx, q, now); err != nil {
			t.Fatal(err)
		}
	}
	// The first refund loads the script (a dropped NOSCRIPT reply would
	// keep the refund from running at all).
	if err := s.Refund(ctx, u.Grant, now); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	if err := s.Refund(ctx, u.Grant, now); err != nil {
		t.Logf("refund, resent: %v", err)
	}
	live, _, err := s.List(ctx, "user:alice", now)
	if err != nil || len(live) != 1 || live[0].Left != 2 {
		t.Fatalf("after 3 uses of 3, a refund and a refund resent: %+v %v, want 2 left", live, err)
	}
	// Near miss: answered refunds each give a use back, up to the grant's.
	if _, err := s.Consume(ctx, q, now); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Refund(ctx, u.Grant, now); err != nil {
			t.Fatal(err)
		}
	}
	if live, _, _ := s.List(ctx, "user:alice", now); len(live) != 1 || live[0].Left != 3 {
		t.Fatalf("after two refunds: %+v, want 3 left", live)
	}
}
