package redisgrant_test

import (
	"bytes"
	"context"
	"errors"
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

// lateConn delays the reply to the next script it sends by lag, once,
// when armed: a network hiccup on the way back from a healthy Redis.
// (Consume reads the principal's grants first; that reply is on time.)
type lateConn struct {
	net.Conn
	armed, due *atomic.Bool
	lag        time.Duration
}

func (c lateConn) Write(b []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(b), []byte("evalsha")) && c.armed.CompareAndSwap(true, false) {
		c.due.Store(true)
	}
	return c.Conn.Write(b)
}

func (c lateConn) Read(b []byte) (int, error) {
	if c.due.CompareAndSwap(true, false) {
		time.Sleep(c.lag)
	}
	return c.Conn.Read(b)
}

// lateStore is a store over a client whose next EVALSHA, once armed, is
// answered 400 ms late, past the store's 200 ms Timeout; maxRetries is
// go-redis's (0: its default of 3 retries, -1: none).
func lateStore(t *testing.T, maxRetries int) (*redisgrant.Store, *atomic.Bool) {
	t.Helper()
	srv := redistest.Start(t)
	armed := new(atomic.Bool)
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: maxRetries,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return lateConn{conn, armed, new(atomic.Bool), 400 * time.Millisecond}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{Timeout: 200 * time.Millisecond, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return s, armed
}

// TestLostConsumeReplyGivesTheUseBack: a grant use Redis took in time
// whose reply came back after the Timeout. The guard asked the human
// again (the store was unavailable), and the use was gone: a grant of
// three uses let two calls through. The store gives the use back by its
// receipt; a consume that never reached Redis takes nothing, and the
// answered ones count.
func TestLostConsumeReplyGivesTheUseBack(t *testing.T) {
	s, armed := lateStore(t, -1)
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	q := granttest.Query("user:alice")
	left := func() int {
		t.Helper()
		live, _, err := s.List(ctx, "user:alice", now)
		if err != nil || len(live) != 1 {
			t.Fatalf("list: %v %v", live, err)
		}
		return live[0].Left
	}
	// The first use loads the script (a late NOSCRIPT reply would keep the
	// consume from running at all).
	if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != 2 {
		t.Fatalf("first use: %+v %v", u, err)
	}
	armed.Store(true)
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrUnavailable) {
		t.Fatalf("a use whose reply came late: %v, want ErrUnavailable", err)
	}
	if n := left(); n != 2 {
		t.Fatalf("%d uses left after a use whose reply was lost, want 2", n)
	}
	// Near miss: a consume that never reached Redis takes nothing.
	dead, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Consume(dead, q, now); err == nil {
		t.Fatal("a consume with a cancelled context succeeded")
	}
	if n := left(); n != 2 {
		t.Fatalf("%d uses left after a consume that was not sent, want 2", n)
	}
	// The two uses left are two calls.
	for want := 1; want >= 0; want-- {
		if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != want {
			t.Fatalf("use with %d to be left: %+v %v", want, u, err)
		}
	}
	if _, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a fourth use: %v, want ErrNoGrant", err)
	}
}
