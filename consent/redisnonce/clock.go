package redisnonce

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// Clock is time as the shared Redis tells it (TIME), for every replica's
// consent clocks: pass Clock.Now as AskerOptions.Now, VerifierOptions.Now
// and Options.Now. Then a proof's valid_until, the verifiers' expiry checks
// and the nonce keys' lifetimes are all measured on one clock, and clock
// skew between replicas can no longer let a nonce expire in Redis while
// another replica still takes its proof as valid (with local clocks, more
// than NonceGrace of skew did).
//
// Now is the local clock plus the offset to Redis measured by the last
// Sync (half the round trip is taken as the transit time). [NewClock] syncs
// once, so a Clock is never unsynced; call [Clock.Run] (or Sync) to follow
// drift. A Clock is safe for concurrent use.
type Clock struct {
	c      redis.Cmdable
	local  func() time.Time
	offset atomic.Int64 // nanoseconds to add to the local clock
}

// NewClock returns a Clock synced with c's TIME. local is the local clock
// (nil means time.Now). A failure wraps [consent.ErrUnavailable].
func NewClock(ctx context.Context, c redis.Cmdable, local func() time.Time) (*Clock, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redisnonce.NewClock: nil client", consent.ErrInvalidOptions)
	}
	if local == nil {
		local = time.Now
	}
	k := &Clock{c: c, local: local}
	if err := k.Sync(ctx); err != nil {
		return nil, err
	}
	return k, nil
}

// Sync measures the offset to Redis TIME again.
func (k *Clock) Sync(ctx context.Context) error {
	t0 := k.local()
	rt, err := k.c.Time(ctx).Result()
	if err != nil {
		return fmt.Errorf("%w: redis TIME: %w", consent.ErrUnavailable, err)
	}
	t1 := k.local()
	mid := t0.Add(t1.Sub(t0) / 2)
	k.offset.Store(int64(rt.Sub(mid)))
	return nil
}

// Now returns the Redis time, estimated from the local clock.
func (k *Clock) Now() time.Time { return k.local().Add(time.Duration(k.offset.Load())) }

// Offset returns the measured difference between Redis and the local clock.
func (k *Clock) Offset() time.Duration { return time.Duration(k.offset.Load()) }

// Run syncs every interval (default a minute) until ctx is done, and
// returns ctx's error. A failed sync keeps the last offset and is retried
// at the next tick.
func (k *Clock) Run(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = time.Minute
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			_ = k.Sync(ctx)
		}
	}
}
