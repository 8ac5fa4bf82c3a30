package redisnonce_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestNewRefusesEviction (issue 17 faults 1 and 5): an evicted nonce is
// accepted again, so an evicting Redis is refused unless accepted, and
// appendonly no is refused when durability is required.
func TestNewRefusesEviction(t *testing.T) {
	redistest.CheckConstructorRefusesEviction(t, "volatile-ttl", consent.ErrInvalidOptions, func(ctx context.Context, c redis.Cmdable, h redistest.HealthChoice) error {
		_, err := redisnonce.New(ctx, c, &redisnonce.Options{Warn: func(string) {}, AcceptEviction: h.AcceptEviction, RequireDurable: h.RequireDurable})
		return err
	})
}
