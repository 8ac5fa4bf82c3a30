package redistrust_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/trust"
	"github.com/gatehouse-dev/gatehouse/trust/redistrust"
	"github.com/gatehouse-dev/gatehouse/trust/trusttest"
)

func client(t testing.TB, srv *redistest.Server) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1, PoolSize: 64})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestConformance runs the shared trust-store kit against a real redis-server.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	n := 0
	trusttest.TestStore(t, func(t *testing.T, def trust.Level, window int) trust.Store {
		n++
		s, err := redistrust.New(context.Background(), client(t, srv), &redistrust.Options{Prefix: "kit" + string(rune('a'+n)) + ":", Default: def, Window: window, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSharedAcrossReplicas: two stores on one Redis see one level.
func TestSharedAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	a, _ := redistrust.New(context.Background(), client(t, srv), &redistrust.Options{Default: trust.Trusted})
	b, _ := redistrust.New(context.Background(), client(t, srv), &redistrust.Options{Default: trust.Trusted})
	ctx := context.Background()
	if _, err := a.Degrade(ctx, "agent", trust.ViolationSecurity); err != nil {
		t.Fatal(err)
	}
	if l, err := b.Level(ctx, "agent"); err != nil || l != trust.Supervised {
		t.Fatalf("replica b sees %v, %v", l, err)
	}
	ttl, err := client(t, srv).PTTL(ctx, a.Key("agent")).Result()
	if err != nil || ttl <= 0 || ttl > redistrust.DefaultTTL {
		t.Fatalf("state TTL %v, %v", ttl, err)
	}
}

// TestFailsClosed: with Redis gone every call is an error wrapping
// trust.ErrUnavailable, within the timeout.
func TestFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	s, _ := redistrust.New(context.Background(), client(t, srv), &redistrust.Options{Timeout: 300 * time.Millisecond})
	srv.Kill()
	start := time.Now()
	if _, err := s.Level(context.Background(), "agent"); !errors.Is(err, trust.ErrUnavailable) {
		t.Fatalf("Level with Redis down: %v", err)
	}
	if _, err := s.Record(context.Background(), "agent", false); !errors.Is(err, trust.ErrUnavailable) {
		t.Fatalf("Record with Redis down: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := redistrust.New(context.Background(), nil, nil); !errors.Is(err, trust.ErrInvalidOptions) {
		t.Fatalf("nil client: %v", err)
	}
	if _, err := redistrust.New(context.Background(), redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), nil); !errors.Is(err, trust.ErrInvalidOptions) {
		t.Fatalf("client without ContextTimeoutEnabled: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	for _, o := range []redistrust.Options{{Default: 7}, {Window: -1}, {Prefix: "a{b"}, {Timeout: -1}} {
		if _, err := redistrust.New(context.Background(), c, &o); !errors.Is(err, trust.ErrInvalidOptions) {
			t.Errorf("options %+v: %v", o, err)
		}
	}
}
