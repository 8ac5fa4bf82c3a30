package redistrust_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/trust"
	"github.com/gatehouse-dev/gatehouse/trust/redistrust"
)

// TestNewRefusesEviction (issue 17 fault 1): an evicted agent comes back at
// the default level, so an evicting Redis is refused unless accepted, and
// appendonly no is refused when durability is required.
func TestNewRefusesEviction(t *testing.T) {
	redistest.CheckConstructorRefusesEviction(t, "volatile-ttl", trust.ErrInvalidOptions, func(ctx context.Context, c redis.Cmdable, h redistest.HealthChoice) error {
		_, err := redistrust.New(ctx, c, &redistrust.Options{Warn: func(string) {}, AcceptEviction: h.AcceptEviction, RequireDurable: h.RequireDurable})
		return err
	})
}
