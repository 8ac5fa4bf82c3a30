package ratelimit_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/storetest"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// limiterAsStore sends storetest's calls through a Limiter's AllowAt.
type limiterAsStore struct{ l *ratelimit.Limiter }

func (s limiterAsStore) Take(ctx context.Context, key string, r ratelimit.Rate, now time.Time) (ratelimit.Result, error) {
	if r != s.l.Rate() {
		return ratelimit.Result{}, errors.New("rate mismatch")
	}
	return s.l.AllowAt(ctx, key, now)
}

// TestLimiterMatchesReferenceModel drives the in-memory Limiter through
// randomized call sequences on an injected clock and compares every answer
// with storetest.Model, an exact integer token bucket.
func TestLimiterMatchesReferenceModel(t *testing.T) {
	for _, spec := range []string{"1/s", "2/second", "3/s", "10/minute", "60/min", "250/hour", "1000/h"} {
		for seed := uint64(1); seed <= 4; seed++ {
			r := ratelimit.MustParseRate(spec)
			l, err := ratelimit.NewLimiter(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(spec+"/seed"+strconv.FormatUint(seed, 10), func(t *testing.T) {
				storetest.CheckAgainstModel(t, limiterAsStore{l}, r, 2000+8*r.N, seed)
			})
		}
	}
}

func TestLimiterAllowUsesClock(t *testing.T) {
	now := t0
	l, err := ratelimit.NewLimiter(ratelimit.MustParseRate("2/minute"), &ratelimit.LimiterOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, want := range []bool{true, true, false} {
		if res, err := l.Allow(ctx, "k"); err != nil || res.Allowed != want {
			t.Fatalf("call %d: %+v, %v; want allowed=%v", i, res, err, want)
		}
	}
	res, _ := l.Allow(ctx, "k")
	if res.RetryAfter != 30*time.Second {
		t.Fatalf("RetryAfter = %v, want 30s", res.RetryAfter)
	}
	now = now.Add(30 * time.Second)
	if res, _ := l.Allow(ctx, "k"); !res.Allowed {
		t.Fatal("denied 30s later, want one token back")
	}
}

func TestLimiterRateChangeOnSharedKey(t *testing.T) {
	store := newMemory(t)
	ctx := context.Background()
	fast, _ := ratelimit.NewLimiter(ratelimit.MustParseRate("5/s"), &ratelimit.LimiterOptions{Store: store})
	slow, _ := ratelimit.NewLimiter(ratelimit.MustParseRate("1/hour"), &ratelimit.LimiterOptions{Store: store})
	for range 5 {
		if res, _ := fast.AllowAt(ctx, "k", t0); !res.Allowed {
			t.Fatal("fast burst denied")
		}
	}
	// The tokens spent stay spent when the rate of the key changes.
	if res, _ := slow.AllowAt(ctx, "k", t0); res.Allowed {
		t.Fatal("rate change refilled the bucket")
	}
}

// TestKeyFlood: 1,000,000 distinct keys against the default store never hold
// more than the documented cap, cost bounded memory, deny new keys with
// ErrCapacity at the cap, and leave existing keys working.
func TestKeyFlood(t *testing.T) {
	const flood = 1_000_000
	store := newMemory(t)
	capKeys, _, _ := store.Caps()
	if capKeys < 100_000 || capKeys > 100_000+63 {
		t.Fatalf("default cap %d, want 100,000 rounded up to a multiple of 64", capKeys)
	}
	ctx := context.Background()
	r := ratelimit.MustParseRate("1/minute")
	l, _ := ratelimit.NewLimiter(r, &ratelimit.LimiterOptions{Store: store})
	if res, _ := l.AllowAt(ctx, "victim", t0); !res.Allowed {
		t.Fatal("victim's first call denied")
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	allowed, capped := 0, 0
	key := make([]byte, 0, 32)
	for i := range flood {
		key = strconv.AppendInt(append(key[:0], "attacker-key-"...), int64(i), 10)
		res, err := l.AllowAt(ctx, string(key), t0)
		switch {
		case err == nil && res.Allowed:
			allowed++
		case errors.Is(err, ratelimit.ErrCapacity) && !res.Allowed:
			capped++
		default:
			t.Fatalf("key %d: %+v, %v", i, res, err)
		}
		if i%100_000 == 0 {
			if n, _, _ := store.Len(); n > capKeys {
				t.Fatalf("after %d keys the store holds %d, over the cap %d", i, n, capKeys)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	n, _, _ := store.Len()
	if n > capKeys || allowed+1 != n || allowed+capped != flood {
		t.Fatalf("holds %d keys (cap %d), %d new keys allowed, %d denied", n, capKeys, allowed, capped)
	}
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	perKey := grown / int64(capKeys)
	t.Logf("1,000,000 keys: %d held (cap %d), heap grew %d bytes (%d per held key)", n, capKeys, grown, perKey)
	if perKey > 400 {
		t.Fatalf("heap grew %d bytes for %d keys: %d per key, over the 400 allowed (the docs say about 170)", grown, capKeys, perKey)
	}

	// The victim's state survived the flood: still limited at t0.
	if res, err := l.AllowAt(ctx, "victim", t0); err != nil || res.Allowed {
		t.Fatalf("victim after the flood: %+v, %v; want still limited", res, err)
	}
	// A minute later all buckets have refilled and can be evicted: new keys
	// are accepted again.
	later := t0.Add(time.Minute + 2*time.Second)
	if res, err := l.AllowAt(ctx, "newcomer", later); err != nil || !res.Allowed {
		t.Fatalf("new key after the window: %+v, %v; want allowed", res, err)
	}
}

// TestIdleKeysAreEvictedOnlyWhenFull checks eviction against its invariant:
// a bucket goes only once it has refilled, so eviction never lets more through.
func TestIdleKeysAreEvictedOnlyWhenFull(t *testing.T) {
	store := newMemory(t)
	ctx := context.Background()
	l, _ := ratelimit.NewLimiter(ratelimit.MustParseRate("10/minute"), &ratelimit.LimiterOptions{Store: store})
	for range 10 {
		l.AllowAt(ctx, "drained", t0)
	}
	for i := range 1000 {
		l.AllowAt(ctx, "idle-"+strconv.Itoa(i), t0)
	}
	if n, _, _ := store.Len(); n != 1001 {
		t.Fatalf("holds %d keys, want 1001", n)
	}
	// 2s later: nothing is full yet; the idle keys had 9 of 10 tokens (0.33
	// refilled) and "drained" has 0.33. Touch every shard to run sweeps.
	at := t0.Add(2 * time.Second)
	for i := range 1000 {
		l.AllowAt(ctx, "second-"+strconv.Itoa(i), at)
	}
	if n, _, _ := store.Len(); n != 2001 {
		t.Fatalf("after 2s holds %d keys, want 2001: a bucket that was not full was evicted", n)
	}
	if res, _ := l.AllowAt(ctx, "drained", at); res.Allowed {
		t.Fatal("drained key allowed after 2s at 10/minute")
	}
	// A minute later every bucket is full: a sweep in each shard drops them.
	at = t0.Add(2 * time.Minute)
	for i := range 1000 {
		l.AllowAt(ctx, "third-"+strconv.Itoa(i), at)
	}
	if n, _, _ := store.Len(); n != 1000 {
		t.Fatalf("two minutes later holds %d keys, want only the 1000 new ones", n)
	}
}

func TestMemoryStoreCapIsEnforcedPerKind(t *testing.T) {
	store, err := ratelimit.NewMemoryStore(&ratelimit.MemoryOptions{MaxKeys: 64, MaxBudgetScopes: 64, MaxConversations: 64})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := ratelimit.MustParseRate("1/s")
	p := ratelimit.StepParams{MaxRepeats: 2, ReservationTTL: time.Minute, ConversationTTL: time.Hour}
	var rateErr, budErr, convErr error
	for i := range 10_000 { // enough to fill every shard
		k := strconv.Itoa(i)
		if _, err := store.Take(ctx, k, r, t0); err != nil && rateErr == nil {
			rateErr = err
		}
		if _, err := store.Spend(ctx, k, []ratelimit.Counter{{Name: "n", Add: 1, TTL: time.Hour}}, ratelimit.SpendCommit, t0); err != nil && budErr == nil {
			budErr = err
		}
		if _, err := store.Reserve(ctx, k, 1, ratelimit.Fingerprint{}, p, t0); err != nil && convErr == nil {
			convErr = err
		}
	}
	for name, err := range map[string]error{"rate": rateErr, "budget": budErr, "conversation": convErr} {
		if !errors.Is(err, ratelimit.ErrCapacity) {
			t.Errorf("%s: %v, want ErrCapacity", name, err)
		}
	}
	keys, scopes, convs := store.Len()
	if keys != 64 || scopes != 64 || convs != 64 {
		t.Errorf("Len() = %d, %d, %d; want 64 each", keys, scopes, convs)
	}
}

func TestNewMemoryStoreRejectsNegativeCaps(t *testing.T) {
	for _, o := range []ratelimit.MemoryOptions{{MaxKeys: -1}, {MaxBudgetScopes: -1}, {MaxConversations: -1}} {
		if _, err := ratelimit.NewMemoryStore(&o); !errors.Is(err, ratelimit.ErrInvalidOptions) {
			t.Errorf("NewMemoryStore(%+v) = %v, want ErrInvalidOptions", o, err)
		}
	}
}

func TestKeyIsUnambiguous(t *testing.T) {
	if ratelimit.Key("ab", "c") == ratelimit.Key("a", "bc") || ratelimit.Key("a:", "b") == ratelimit.Key("a", ":b") {
		t.Fatal("Key joins parts ambiguously")
	}
	if got := ratelimit.Key("agent", "tool"); got != "5:agent4:tool" {
		t.Fatalf("Key = %q", got)
	}
}
