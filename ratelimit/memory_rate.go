package ratelimit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// rateShard holds part of the buckets. Take holds the read lock while it
// uses a bucket, and eviction holds the write lock, so a bucket is never
// evicted while a call is taking from it (that would hand out a fresh, full
// bucket and let one extra event through).
type rateShard struct {
	mu        sync.RWMutex
	m         map[string]*bucket
	lastSweep time.Time
	_         [64]byte // keep shards on separate cache lines
}

type bucket struct {
	lim *rate.Limiter
	r   Rate
}

func newBucket(r Rate) *bucket {
	return &bucket{lim: rate.NewLimiter(limitOf(r), r.N), r: r}
}

func limitOf(r Rate) rate.Limit {
	return rate.Limit(float64(r.N) / r.Per.Seconds())
}

// Take implements [RateStore] on x/time/rate token buckets (burst = r.N).
func (s *MemoryStore) Take(_ context.Context, key string, r Rate, now time.Time) (Result, error) {
	if !r.Valid() {
		return Result{Limit: r}, fmt.Errorf("%w: %d per %v", ErrInvalidRate, r.N, r.Per)
	}
	if err := CheckKey("rate key", key); err != nil {
		return Result{Limit: r}, err
	}
	sh := &s.rates[s.shardOf(key)]
	sh.mu.RLock()
	if b := sh.m[key]; b != nil && b.r == r {
		res := take(b, now)
		sh.mu.RUnlock()
		return res, nil
	}
	sh.mu.RUnlock()

	sh.mu.Lock()
	defer sh.mu.Unlock()
	b := sh.m[key]
	switch {
	case b != nil && b.r != r:
		// The same key under a new rate: keep the tokens, change the refill.
		b.lim.SetLimitAt(now, limitOf(r))
		b.lim.SetBurstAt(now, r.N)
		b.r = r
	case b == nil:
		if now.Sub(sh.lastSweep) >= sweepEvery {
			sh.lastSweep = now
			for k, old := range sh.m {
				if old.lim.TokensAt(now) >= float64(old.r.N) {
					delete(sh.m, k)
				}
			}
		}
		if len(sh.m) >= s.rateCap {
			return Result{Limit: r}, capacityError("rate keys", s.rateCap*numShards)
		}
		b = newBucket(r)
		sh.m[key] = b
	}
	return take(b, now), nil
}

func take(b *bucket, now time.Time) Result {
	res := Result{Limit: b.r}
	if b.lim.AllowN(now, 1) {
		res.Allowed = true
		// Remaining costs a second lock of the bucket; it is worth it for
		// rate-limit headers and still within the benchmark target.
		res.Remaining = int(math.Floor(b.lim.TokensAt(now)))
		return res
	}
	// Time until the bucket holds one whole token again.
	missing := 1 - b.lim.TokensAt(now)
	res.RetryAfter = time.Duration(math.Ceil(missing * float64(b.r.Per) / float64(b.r.N)))
	return res
}
