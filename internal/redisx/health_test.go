package redisx_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/internal/redisx"
)

func client(t *testing.T, srv *redistest.Server) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCheck: every eviction policy but noeviction is refused unless
// accepted; appendonly no warns, and is refused when durability is
// required.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	for _, pol := range []string{"noeviction", "allkeys-lru", "volatile-ttl", "allkeys-random"} {
		srv := redistest.StartWith(t, redistest.Config{MaxMemory: "16mb", Policy: pol})
		c := client(t, srv)
		h, err := redisx.Check(ctx, c, redisx.HealthOptions{})
		if pol == "noeviction" {
			if err != nil || h.EvictionPolicy != pol || h.MaxMemory != 16<<20 || h.AOF || len(h.Warnings) != 1 {
				t.Errorf("%s: %+v, %v; want accepted with one warning", pol, h, err)
			}
			if _, err := redisx.Check(ctx, c, redisx.HealthOptions{RequireDurable: true}); !errors.Is(err, redisx.ErrNotDurable) {
				t.Errorf("%s, RequireDurable without AOF: %v, want ErrNotDurable", pol, err)
			}
			continue
		}
		if !errors.Is(err, redisx.ErrEviction) || !strings.Contains(err.Error(), pol) {
			t.Errorf("%s: %v, want ErrEviction naming the policy", pol, err)
		}
		if _, err := redisx.Check(ctx, c, redisx.HealthOptions{AcceptEviction: true}); err != nil {
			t.Errorf("%s accepted explicitly: %v", pol, err)
		}
	}
	srv := redistest.StartWith(t, redistest.Config{AppendOnly: true})
	if h, err := redisx.Check(ctx, client(t, srv), redisx.HealthOptions{RequireDurable: true}); err != nil || !h.AOF || len(h.Warnings) != 0 {
		t.Errorf("AOF server: %+v, %v", h, err)
	}
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer dead.Close()
	if _, err := redisx.Check(ctx, dead, redisx.HealthOptions{}); !errors.Is(err, redisx.ErrHealth) {
		t.Errorf("unreachable server: %v, want ErrHealth", err)
	}
}

// TestMarker: the marker is created once, kept (no expiry), and created
// again after the data is lost.
func TestMarker(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	ctx := context.Background()
	m1, err := redisx.Marker(ctx, c, "m")
	if err != nil || !m1.Created {
		t.Fatalf("first Marker: %+v, %v", m1, err)
	}
	time.Sleep(2 * time.Millisecond)
	m2, err := redisx.Marker(ctx, c, "m")
	if err != nil || m2.Created || !m2.Born.Equal(m1.Born) || !m2.Now.After(m1.Born) {
		t.Fatalf("second Marker: %+v, %v; want the first one's Born", m2, err)
	}
	if ttl := c.PTTL(ctx, "m").Val(); ttl != -1 {
		t.Fatalf("marker PTTL %v, want none", ttl)
	}
	srv.Restart()
	var m3 redisx.MarkerState
	for range 50 {
		if m3, err = redisx.Marker(ctx, c, "m"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || !m3.Created || !m3.Born.After(m1.Born) {
		t.Fatalf("Marker after a restart without persistence: %+v, %v; want a new one", m3, err)
	}
	c.Set(ctx, "bad", "nan", 0)
	if _, err := redisx.Marker(ctx, c, "bad"); !errors.Is(err, redisx.ErrHealth) || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("corrupt marker: %v, want ErrHealth naming the key", err)
	}
}
