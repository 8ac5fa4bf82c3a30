package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// skewedStore is a store with a Timeout of 200ms (receipts live 3.4s)
// behind a HoldProxy holding for 4s, on a Redis whose clock is 10s behind
// what the store takes it for: the skew New measures once with the
// marker and never again (clocks drift, NTP steps), and never measures
// with Options.AcceptDataLoss (Redis Cluster and Ring). Here the store's
// measure is off instead of Redis's clock, to the same effect: every
// deadline it sends is 10s late in Redis's clock.
func skewedStore(t *testing.T, reset bool) (*Store, *redistest.HoldProxy) {
	t.Helper()
	srv := redistest.Start(t)
	p := redistest.NewHoldProxy(t, srv.Addr(), 4*time.Second, reset)
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	s, err := New(context.Background(), c, &Options{Prefix: "skew:", Timeout: 200 * time.Millisecond, AcceptDataLoss: true, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	s.skew = 10 * time.Second
	return s, p
}

func skewCounters(add int64) []ratelimit.Counter {
	return []ratelimit.Counter{{Name: "requests", Add: add, Max: 100, TTL: time.Hour}}
}

func skewValue(t *testing.T, s *Store) int64 {
	t.Helper()
	res, err := s.Spend(context.Background(), "agent", skewCounters(0), ratelimit.SpendCheck, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return res.Values[0]
}

// A charge held on its way to Redis while the connection reset: go-redis
// sent it again, that copy was charged and answered, and the first copy
// reached Redis after the receipt (3.4s) had expired but before the
// charge's deadline in Redis's clock: the call was charged twice (red
// team rtp). A receipt now lives until its write's deadline has passed
// in Redis's own clock, whatever the replica's clock says.
func TestHeldChargeAfterItsResendUnderSkew(t *testing.T) {
	s, p := skewedStore(t, true)
	ctx := context.Background()
	if _, err := s.Spend(ctx, "agent", skewCounters(1), ratelimit.SpendCommit, time.Now()); err != nil {
		t.Fatal(err)
	}
	p.Armed.Store(true)
	want := int64(3)
	if _, err := s.Spend(ctx, "agent", skewCounters(2), ratelimit.SpendCommit, time.Now()); err != nil {
		want = 1
		t.Logf("a charge whose connection reset: %v", err)
	}
	time.Sleep(4500 * time.Millisecond) // the held copy lands
	if got := skewValue(t, s); got != want {
		t.Fatalf("requests %d after a charge of 2 on 1 sent twice, want %d", got, want)
	}
}

// A charge held on its way to Redis past the caller's Timeout: the store
// took it back by its receipt and left the receipt undone for 3.4s, and
// the charge reached Redis after that, before its deadline in Redis's
// clock: a denied call was charged (red team rtp). The undo's tombstone
// now lives until the deadline of the write it undoes has passed in
// Redis's clock.
func TestHeldChargeAfterItsUnchargeUnderSkew(t *testing.T) {
	s, p := skewedStore(t, false)
	ctx := context.Background()
	if _, err := s.Spend(ctx, "agent", skewCounters(1), ratelimit.SpendCommit, time.Now()); err != nil {
		t.Fatal(err)
	}
	p.Armed.Store(true)
	if _, err := s.Spend(ctx, "agent", skewCounters(2), ratelimit.SpendCommit, time.Now()); err == nil {
		t.Fatal("a charge held past the Timeout succeeded")
	}
	time.Sleep(4500 * time.Millisecond) // the held charge lands
	if got := skewValue(t, s); got != 1 {
		t.Fatalf("requests %d after a denied charge landed late, want 1", got)
	}
	// Near miss: answered charges count.
	if _, err := s.Spend(ctx, "agent", skewCounters(2), ratelimit.SpendCommit, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := skewValue(t, s); got != 3 {
		t.Fatalf("requests %d after an answered charge of 2, want 3", got)
	}
}
