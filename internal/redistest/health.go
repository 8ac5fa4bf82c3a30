package redistest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// HealthChoice is what a store's constructor is told about the server
// check: accept an evicting Redis, require AOF.
type HealthChoice struct {
	AcceptEviction, RequireDurable bool
}

// CheckConstructorRefusesEviction is the one test of a Redis-backed store's
// server check (issue 17 faults 1 and 5), run on a server it starts with
// maxmemory 16mb and the given eviction policy: the constructor refuses
// the server with an error matching wantErr and naming the policy; accepts
// it when told to accept eviction; and refuses appendonly no when told to
// require durability. newStore builds the store on c (with its warnings
// silenced) and returns the constructor's error.
func CheckConstructorRefusesEviction(t *testing.T, policy string, wantErr error, newStore func(ctx context.Context, c redis.Cmdable, h HealthChoice) error) {
	t.Helper()
	srv := StartWith(t, Config{MaxMemory: "16mb", Policy: policy})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	defer c.Close()
	ctx := context.Background()
	if err := newStore(ctx, c, HealthChoice{}); !errors.Is(err, wantErr) || !strings.Contains(err.Error(), policy) {
		t.Errorf("on %s: %v, want %v naming the policy", policy, err, wantErr)
	}
	if err := newStore(ctx, c, HealthChoice{AcceptEviction: true}); err != nil {
		t.Errorf("with AcceptEviction: %v", err)
	}
	if err := newStore(ctx, c, HealthChoice{AcceptEviction: true, RequireDurable: true}); !errors.Is(err, wantErr) || !strings.Contains(err.Error(), "appendonly") {
		t.Errorf("with RequireDurable on appendonly no: %v, want %v naming appendonly", err, wantErr)
	}
}
