package redisstore_test

import (
	"context"
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
	opts := func(h redistest.HealthChoice) *redisstore.Options {
		return &redisstore.Options{Warn: func(string) {}, AcceptEviction: h.AcceptEviction, RequireDurable: h.RequireDurable}
	}
	redistest.CheckConstructorRefusesEviction(t, "allkeys-lru", approval.ErrInvalidOptions, func(ctx context.Context, c redis.Cmdable, h redistest.HealthChoice) error {
		_, err := redisstore.NewChallengeStore(ctx, c, opts(h))
		return err
	})
	redistest.CheckConstructorRefusesEviction(t, "allkeys-lru", approval.ErrInvalidOptions, func(ctx context.Context, c redis.Cmdable, h redistest.HealthChoice) error {
		_, err := redisstore.NewCredentialStore(ctx, c, opts(h))
		return err
	})
}
