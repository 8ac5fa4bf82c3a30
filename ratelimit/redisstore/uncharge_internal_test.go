package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// TestUnchargeBeforeALateCharge: the undo of a charge whose reply was
// lost can reach Redis before the charge itself (its command stalled on
// the way, and the connection's reset answered the caller early). The
// undo leaves the receipt undone, and the late charge then changes
// nothing: the call was already refused.
func TestUnchargeBeforeALateCharge(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	s, err := New(context.Background(), c, &Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	counters := []ratelimit.Counter{{Name: "requests", Add: 1, Max: 10, TTL: time.Hour}}
	token := newToken()
	keys, args := s.spendArgs("agent", counters, ratelimit.SpendCommit, token)
	s.uncharge(ctx, keys[:2], counters)
	if _, err := s.run(ctx, "budget spend", budgetScript, keys, now, args...); err == nil || !strings.Contains(err.Error(), "taken back") {
		t.Fatalf("a charge after its undo: %v, want refused as taken back", err)
	}
	res, err := s.Spend(ctx, "agent", []ratelimit.Counter{{Name: "requests", Max: 10, TTL: time.Hour}}, ratelimit.SpendCheck, now)
	if err != nil || res.Values[0] != 0 {
		t.Fatalf("after an undone charge: %+v %v, want 0 spent", res, err)
	}
	// Near miss: an undo whose charge never landed takes nothing back.
	if _, err := s.Spend(ctx, "agent", counters, ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	s.uncharge(ctx, []string{s.budgetKey("agent", "requests"), s.receiptKey("agent", newToken())}, counters)
	res, err = s.Spend(ctx, "agent", []ratelimit.Counter{{Name: "requests", Max: 10, TTL: time.Hour}}, ratelimit.SpendCheck, now)
	if err != nil || res.Values[0] != 1 {
		t.Fatalf("after a stray undo: %+v %v, want 1 spent", res, err)
	}
}
