package ratelimit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// rateShard holds part of the buckets. Lookups read the sync.Map without a
// lock; inserts, deletes and sweeps hold mu. A bucket that a sweep evicts is
// marked under its own lock, and a Take that finds it marked starts over,
// so a Take never spends from a bucket that is no longer in the map (that
// would hand out a fresh, full bucket and let extra events through).
type rateShard struct {
	mu        sync.Mutex // guards inserts, deletes, n and lastSweep
	m         sync.Map   // string -> *bucket
	n         int
	lastSweep time.Time
	nextEvict time.Time // a full shard has no bucket to evict before this
	_         [64]byte  // keep shards on separate cache lines
}

// bucket is a token bucket of capacity N that starts full, kept as GCRA
// (the generic cell rate algorithm, as the Redis store does): one value, the
// theoretical arrival time (TAT) of the next event, updated with one
// compare-and-swap, so concurrent Takes on one hot key never wait for a lock.
// TAT is float64 nanoseconds after base, exact to the nanosecond for 104
// days and within the storetest model's tolerance long after.
type bucket struct {
	r    Rate
	t    float64 // nanoseconds one event costs: Per / N
	per  float64 // nanoseconds of the period
	base time.Time
	tat  atomic.Uint64 // math.Float64bits(TAT); evicted when the bucket left the map
}

// evicted marks a bucket a sweep or a rate change took out of the map (a
// NaN bit pattern no arithmetic produces).
const evicted = math.MaxUint64

func newBucket(r Rate, now time.Time) *bucket {
	b := &bucket{r: r, t: float64(r.Per) / float64(r.N), per: float64(r.Per), base: now}
	b.tat.Store(math.Float64bits(0)) // TAT = now: full
	return b
}

// take spends one token at now; ok is false when the bucket was evicted.
func (b *bucket) take(now time.Time) (res Result, ok bool) {
	res.Limit = b.r
	at := float64(now.Sub(b.base))
	for {
		old := b.tat.Load()
		if old == evicted {
			return Result{}, false
		}
		tat := math.Max(math.Float64frombits(old), at)
		next := tat + b.t
		allowAt := next - b.per
		if at < allowAt {
			res.RetryAfter = time.Duration(math.Ceil(allowAt - at))
			return res, true
		}
		if b.tat.CompareAndSwap(old, math.Float64bits(next)) {
			res.Allowed = true
			// The epsilon keeps float rounding ((P - P/N) / (P/N) = N - 1 -
			// 1e-15) from losing a whole token; it is far below a nanosecond.
			res.Remaining = int(math.Floor((at-allowAt)/b.t + 1e-9))
			return res, true
		}
	}
}

// tokens is the bucket's whole and fractional tokens at now, and false
// once it is evicted.
func (b *bucket) tokens(now time.Time) (float64, bool) {
	old := b.tat.Load()
	if old == evicted {
		return 0, false
	}
	debt := math.Max(math.Float64frombits(old)-float64(now.Sub(b.base)), 0)
	return (b.per - debt) / b.t, true
}

// evictIfIdle marks and reports a full bucket: nobody has spent from it
// for at least one refill period, so a fresh bucket is the same.
func (b *bucket) evictIfIdle(now time.Time) bool {
	at := float64(now.Sub(b.base))
	for {
		old := b.tat.Load()
		if old == evicted {
			return true
		}
		if math.Float64frombits(old) > at {
			return false
		}
		if b.tat.CompareAndSwap(old, evicted) {
			return true
		}
	}
}

// evict marks the bucket evicted whatever its state and returns the tokens
// it held at now.
func (b *bucket) evict(now time.Time) float64 {
	for {
		old := b.tat.Load()
		tok, ok := b.tokens(now)
		if !ok {
			return 0
		}
		if b.tat.CompareAndSwap(old, evicted) {
			return tok
		}
	}
}

// Take implements [RateStore] on token buckets (burst = r.N).
func (s *MemoryStore) Take(_ context.Context, key string, r Rate, now time.Time) (Result, error) {
	if !r.Valid() {
		return Result{Limit: r}, fmt.Errorf("%w: %d per %v", ErrInvalidRate, r.N, r.Per)
	}
	if err := CheckKey("rate key", key); err != nil {
		return Result{Limit: r}, err
	}
	sh := &s.rates[s.shardOf(key)]
	for {
		if v, found := sh.m.Load(key); found {
			if b := v.(*bucket); b.r == r {
				if res, ok := b.take(now); ok {
					return res, nil
				}
				continue // evicted meanwhile: look again
			}
		}
		b, err := s.insert(sh, key, r, now)
		if err != nil {
			return Result{Limit: r}, err
		}
		if res, ok := b.take(now); ok {
			return res, nil
		}
	}
}

// insert returns key's bucket with rate r, creating it (after sweeping idle
// buckets at most once per sweepEvery) or changing its rate.
func (s *MemoryStore) insert(sh *rateShard, key string, r Rate, now time.Time) (*bucket, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if v, found := sh.m.Load(key); found {
		b := v.(*bucket)
		if b.r == r {
			return b, nil
		}
		// The same key under a new rate: keep the tokens, change the refill.
		tok := math.Min(b.evict(now), float64(r.N))
		nb := newBucket(r, now)
		nb.tat.Store(math.Float64bits((float64(r.N) - tok) * nb.t))
		sh.m.Store(key, nb)
		return nb, nil
	}
	if now.Sub(sh.lastSweep) >= sweepEvery {
		sh.lastSweep = now
		sh.m.Range(func(k, v any) bool {
			if v.(*bucket).evictIfIdle(now) {
				sh.m.Delete(k)
				sh.n--
			}
			return true
		})
	}
	if sh.n >= s.rateCap && !s.evictBuckets(sh, now) {
		return nil, capacityError("rate-limit keys", "MemoryOptions.MaxKeys", s.rateCap*numShards,
			"every tracked key has spent more than half of its rate; retry after one period or raise the cap")
	}
	b := newBucket(r, now)
	sh.m.Store(key, b)
	sh.n++
	return b, nil
}

// evictBuckets makes room in a full shard (mu held): the fullest buckets
// that still hold at least half their tokens, up to an eighth of the shard
// at once (a full bucket is the same as an absent one: lossless; otherwise
// the owner regains at most what it had spent, at most half its rate). It
// reports whether it freed anything.
func (s *MemoryStore) evictBuckets(sh *rateShard, now time.Time) bool {
	type cand struct {
		k   any
		b   *bucket
		tok float64
	}
	if now.Before(sh.nextEvict) {
		return false
	}
	var cs []cand
	soonest := time.Duration(math.MaxInt64)
	sh.m.Range(func(k, v any) bool {
		b := v.(*bucket)
		tok, ok := b.tokens(now)
		switch {
		case !ok:
		case tok >= float64(b.r.N)*evictable:
			cs = append(cs, cand{k, b, tok / float64(b.r.N)})
		default:
			// Time until it holds half its tokens again.
			soonest = min(soonest, time.Duration((float64(b.r.N)*evictable-tok)*b.t))
		}
		return true
	})
	if len(cs) == 0 {
		// Takes only push that time later, so no need to look again before.
		sh.nextEvict = now.Add(soonest)
		return false
	}
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.tok > b.tok:
			return -1
		case a.tok < b.tok:
			return 1
		}
		return 0
	})
	freed := false
	for i := 0; i < len(cs) && i < max(1, s.rateCap/8); i++ {
		if cs[i].b.evictAbove(now, float64(cs[i].b.r.N)*evictable) {
			sh.m.Delete(cs[i].k)
			sh.n--
			freed = true
		}
	}
	return freed
}

// evictAbove marks the bucket evicted if it holds at least min tokens at
// now, atomically with respect to concurrent takes.
func (b *bucket) evictAbove(now time.Time, min float64) bool {
	for {
		old := b.tat.Load()
		if old == evicted {
			return false
		}
		debt := math.Max(math.Float64frombits(old)-float64(now.Sub(b.base)), 0)
		if (b.per-debt)/b.t < min {
			return false
		}
		if b.tat.CompareAndSwap(old, evicted) {
			return true
		}
	}
}
