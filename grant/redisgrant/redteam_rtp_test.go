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

// A grant use Redis took whose reply came back after the Timeout, on a
// client with go-redis's default retries (MaxRetries 3): go-redis
// retries the read timeout, its backoff finds the context done, and the
// error is context.DeadlineExceeded, which the store read as "nothing
// was sent" (redisx.ReplyLost). The human was asked again and the use stayed taken (red
// team rtp): the undo only worked with MaxRetries -1.
func TestRedteamLateConsumeReplyWithRetries(t *testing.T) {
	srv := redistest.Start(t)
	var armed atomic.Bool
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return lateConn{conn, &armed, new(atomic.Bool), 400 * time.Millisecond}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{Timeout: 200 * time.Millisecond, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
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
