package redisgrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
	"github.com/gatehouse-dev/gatehouse/grant/redisgrant"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestStore runs the contract on two Stores, each with its own client, on
// one real redis-server: two replicas.
func TestStore(t *testing.T) {
	granttest.TestStore(t, 5, func(t *testing.T) (grant.Store, grant.Store) {
		srv := redistest.Start(t)
		return newStore(t, srv.Addr()), newStore(t, srv.Addr())
	})
}

func newStore(t *testing.T, addr string) *redisgrant.Store { return newStoreTB(t, addr) }

func newStoreTB(t testing.TB, addr string) *redisgrant.Store {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, PoolSize: 64})
	t.Cleanup(func() { c.Close() })
	// A long timeout: a loaded test machine is not an outage.
	s, err := redisgrant.New(context.Background(), c, &redisgrant.Options{MaxPerPrincipal: 5, Timeout: 5 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNewRefusesEviction: an evicted principal would lose its grants with
// no event in the audit log, so an evicting Redis is refused unless
// accepted, and appendonly no when durability is required.
func TestNewRefusesEviction(t *testing.T) {
	redistest.CheckConstructorRefusesEviction(t, "allkeys-lru", grant.ErrInvalidOptions, func(ctx context.Context, c redis.Cmdable, h redistest.HealthChoice) error {
		cl, ok := c.(*redis.Client)
		if !ok {
			t.Fatalf("client %T", c)
		}
		_, err := redisgrant.New(ctx, cl, &redisgrant.Options{Warn: func(string) {}, AcceptEviction: h.AcceptEviction, RequireDurable: h.RequireDurable})
		return err
	})
}
