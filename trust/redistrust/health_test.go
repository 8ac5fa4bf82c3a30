package redistrust_test

import (
	"context"
	"errors"
	"strings"
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
	srv := redistest.StartWith(t, redistest.Config{MaxMemory: "16mb", Policy: "volatile-ttl"})
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	defer c.Close()
	ctx := context.Background()
	quiet := func(string) {}
	if _, err := redistrust.New(ctx, c, &redistrust.Options{Warn: quiet}); !errors.Is(err, trust.ErrInvalidOptions) || !strings.Contains(err.Error(), "volatile-ttl") {
		t.Errorf("New on volatile-ttl: %v, want ErrInvalidOptions naming the policy", err)
	}
	if _, err := redistrust.New(ctx, c, &redistrust.Options{Warn: quiet, AcceptEviction: true}); err != nil {
		t.Errorf("New with AcceptEviction: %v", err)
	}
	if _, err := redistrust.New(ctx, c, &redistrust.Options{AcceptEviction: true, RequireDurable: true}); !errors.Is(err, trust.ErrInvalidOptions) || !strings.Contains(err.Error(), "appendonly") {
		t.Errorf("New with RequireDurable on appendonly no: %v", err)
	}
}
