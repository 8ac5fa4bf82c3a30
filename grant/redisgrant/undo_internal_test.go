package redisgrant

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestUndoBeforeALateConsume: the undo of a use whose reply was lost can
// reach Redis before the consume itself (the consume's command stalled on
// the way). The undo leaves its receipt undone, and the late consume then
// takes nothing: the call was already refused.
func TestUndoBeforeALateConsume(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	s, err := New(context.Background(), c, &Options{Timeout: 5 * time.Second, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := granttest.T0
	g := granttest.NewGrant(t, "user:bob", grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, now)
	if _, err := s.Create(ctx, g, now); err != nil {
		t.Fatal(err)
	}
	key := s.Key("user:bob")
	receipt := key + "r:" + newToken()
	s.undo(ctx, key, receipt, g, now)
	res, err := consumeScript.Run(ctx, c, []string{key, receipt}, g.ID, now.UnixMilli(), 1, s.receiptTTL().Milliseconds()).Slice()
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := reply(res); st != 0 {
		t.Fatalf("a consume after its undo: status %d, want 0 (nothing taken)", st)
	}
	live, _, err := s.List(ctx, "user:bob", now)
	if err != nil || len(live) != 1 || live[0].Left != 3 {
		t.Fatalf("after an undone consume: %+v %v, want 3 uses left", live, err)
	}
	// Near miss: an undo whose consume took nothing gives nothing back.
	if u, err := s.Consume(ctx, granttest.Query("user:bob"), now); err != nil || u.Grant.Left != 2 {
		t.Fatalf("a use: %+v %v", u, err)
	}
	s.undo(ctx, key, key+"r:"+newToken(), g, now)
	if live, _, _ := s.List(ctx, "user:bob", now); len(live) != 1 || live[0].Left != 2 {
		t.Fatalf("after a stray undo: %+v, want 2 uses left", live)
	}
}
