package redisgrant_test

import (
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

// A grant whose Create Redis ran but whose reply came back after the
// Timeout: Create failed, so the guard logged GRANT_REFUSED ("the
// approval covers this call only"), yet the grant was stored and let the
// next calls through: a grant the audit log does not record existed (red
// team rtp). A Create that may have landed is now withdrawn by its id,
// and a copy of it that lands later stores nothing.
func TestRedteamLateCreateReplyLeavesNoGrant(t *testing.T) {
	s, armed := lateStore(t, 0)
	ctx := context.Background()
	now := granttest.T0
	// The first grant loads the script (a late NOSCRIPT reply would keep
	// the create from running at all).
	first := granttest.NewGrant(t, "user:bob", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, first, now); err != nil {
		t.Fatal(err)
	}
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	armed.Store(true)
	if _, err := s.Create(ctx, g, now); !errors.Is(err, grant.ErrUnavailable) {
		t.Fatalf("a create whose reply came late: %v, want ErrUnavailable", err)
	}
	if u, err := s.Consume(ctx, granttest.Query("user:alice"), now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a use of a grant whose create failed: %+v %v, want ErrNoGrant", u, err)
	}
	// Near miss: the same grant created again, answered, is there.
	if _, err := s.Create(ctx, granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now), now); err != nil {
		t.Fatal(err)
	}
	if u, err := s.Consume(ctx, granttest.Query("user:alice"), now); err != nil || u.Grant.Left != 2 {
		t.Fatalf("a use of a grant created: %+v %v", u, err)
	}
}

// A Create whose connection reset after Redis ran it is sent again by
// go-redis; a use taken in between (another replica's call) was undone
// by the resend, which stored the grant afresh with all its uses: a
// grant of three uses let four calls through (red team rtp). A resend
// now finds the grant and leaves it as it is.
func TestRedteamRetriedCreateKeepsItsUses(t *testing.T) {
	srv := redistest.Start(t)
	var armed, between atomic.Bool
	var other *redisgrant.Store
	q := granttest.Query("user:alice")
	now := granttest.T0
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if between.CompareAndSwap(true, false) {
				// Before go-redis's resend: another replica takes a use.
				if u, err := other.Consume(context.Background(), q, now); err != nil || u.Grant.Left != 2 {
					return nil, errors.New("the other replica's use failed")
				}
			}
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return resetConn{conn, &armed, new(atomic.Bool)}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	oc := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { oc.Close() })
	ctx := context.Background()
	var err error
	if other, err = redisgrant.New(ctx, oc, &redisgrant.Options{Warn: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	s, err := redisgrant.New(ctx, c, &redisgrant.Options{Timeout: 2 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	first := granttest.NewGrant(t, "user:bob", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, first, now); err != nil {
		t.Fatal(err)
	}
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	armed.Store(true)
	between.Store(true)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatalf("a create resent after its connection reset: %v", err)
	}
	if between.Load() {
		t.Fatal("go-redis did not resend the create")
	}
	for want := 1; want >= 0; want-- {
		if u, err := s.Consume(ctx, q, now); err != nil || u.Grant.Left != want {
			t.Fatalf("use with %d to be left: %+v %v", want, u, err)
		}
	}
	if u, err := s.Consume(ctx, q, now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a fourth use of a grant of three: %+v %v, want ErrNoGrant", u, err)
	}
}
