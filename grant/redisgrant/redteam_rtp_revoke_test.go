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

// A Revoke whose connection reset after Redis ran it, or whose reply came
// late, was answered ErrNotFound by go-redis's resend, or failed: the
// grant was gone, and `gatehouse grants revoke` wrote no GRANT_REVOKED
// event (RevokeGrant audits only a revocation it is told of), so the
// audit log no longer accounted for the grant; the operator's retry
// found nothing either (red team rtp). A Revoke now leaves a receipt
// holding the grant: its resend answers with it, and a Revoke whose
// reply was lost reads it.
func TestRedteamLostRevokeReplyIsKnown(t *testing.T) {
	srv := redistest.Start(t)
	var reset, late atomic.Bool
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return lateConn{resetConn{conn, &reset, new(atomic.Bool)}, &late, new(atomic.Bool), 400 * time.Millisecond}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{Timeout: 200 * time.Millisecond, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := granttest.T0
	// Load the script first (a NOSCRIPT reply lost runs nothing).
	if _, err := s.Revoke(ctx, "user:alice", "g_00000000000000000000000000000000"); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("revoking an unknown grant: %v, want ErrNotFound", err)
	}
	for i, fault := range []*atomic.Bool{&reset, &late} {
		g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
		if _, err := s.Create(ctx, g, now); err != nil {
			t.Fatal(err)
		}
		fault.Store(true)
		got, err := s.Revoke(ctx, "user:alice", g.ID)
		if err != nil || got.ID != g.ID {
			t.Fatalf("fault %d: a revoke that landed: %+v %v, want the grant", i, got, err)
		}
		// Near miss: a second revoke finds nothing.
		if _, err := s.Revoke(ctx, "user:alice", g.ID); !errors.Is(err, grant.ErrNotFound) {
			t.Fatalf("fault %d: a second revoke: %v, want ErrNotFound", i, err)
		}
	}
}

// The first copy of a Create held on its way while the connection reset:
// go-redis's resend stored the grant, the operator revoked it, and the
// held copy then stored it again with all its uses: a revoked grant let
// calls through (red team rtp). A revoked or withdrawn grant's id is now
// marked for as long as the grant could be used, and a Create of it
// stores nothing.
func TestRedteamHeldCreateAfterItsRevoke(t *testing.T) {
	s, p := holdStore(t, 2*time.Second, true)
	ctx := context.Background()
	now := granttest.T0
	first := granttest.NewGrant(t, "user:bob", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, first, now); err != nil {
		t.Fatal(err)
	}
	g := granttest.NewGrant(t, "user:alice", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	p.Armed.Store(true)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Logf("a create whose connection reset: %v", err)
	}
	if _, err := s.Revoke(ctx, "user:alice", g.ID); err != nil && !errors.Is(err, grant.ErrNotFound) {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond) // the held copy lands
	if u, err := s.Consume(ctx, granttest.Query("user:alice"), now); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a use of a revoked grant: %+v %v, want ErrNoGrant", u, err)
	}
}
