package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/redisstore"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestConstructorsRefuseEviction (issue 17 fault 1): an evicting Redis
// would drop consumed challenges and credentials; both constructors refuse
// it unless told to accept it, and refuse appendonly no when durability is
// required.
func TestConstructorsRefuseEviction(t *testing.T) {
	srv := redistest.StartWith(t, redistest.Config{MaxMemory: "16mb", Policy: "allkeys-lru"})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	defer c.Close()
	ctx := context.Background()
	quiet := func(string) {}
	if _, err := redisstore.NewChallengeStore(ctx, c, &redisstore.Options{Warn: quiet}); !errors.Is(err, approval.ErrInvalidOptions) || !strings.Contains(err.Error(), "allkeys-lru") {
		t.Errorf("NewChallengeStore on allkeys-lru: %v, want ErrInvalidOptions naming the policy", err)
	}
	if _, err := redisstore.NewCredentialStore(ctx, c, &redisstore.Options{Warn: quiet}); !errors.Is(err, approval.ErrInvalidOptions) {
		t.Errorf("NewCredentialStore on allkeys-lru: %v, want ErrInvalidOptions", err)
	}
	if _, err := redisstore.NewChallengeStore(ctx, c, &redisstore.Options{Warn: quiet, AcceptEviction: true}); err != nil {
		t.Errorf("NewChallengeStore with AcceptEviction: %v", err)
	}
	if _, err := redisstore.NewChallengeStore(ctx, c, &redisstore.Options{AcceptEviction: true, RequireDurable: true}); !errors.Is(err, approval.ErrInvalidOptions) || !strings.Contains(err.Error(), "appendonly") {
		t.Errorf("NewChallengeStore with RequireDurable on appendonly no: %v", err)
	}
}
