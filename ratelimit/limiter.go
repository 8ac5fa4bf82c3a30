package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LimiterOptions configure a [Limiter]. nil means defaults.
type LimiterOptions struct {
	// Store holds the buckets. nil means a new [MemoryStore] with default caps.
	Store RateStore
	// Now is the clock of Allow. nil means time.Now.
	Now func() time.Time
}

// Limiter limits events per key to a [Rate]: each key has a token bucket
// holding at most Rate.N tokens that regains Rate.N tokens per Rate.Per, so a
// burst of N is allowed and then one event per Rate.Interval. Keys are chosen
// by the caller: a tool name, agent and tool, and so on; build keys whose
// parts cannot run into each other (see [Key]).
//
// A Limiter is safe for concurrent use.
type Limiter struct {
	rate  Rate
	store RateStore
	now   func() time.Time
}

// NewLimiter returns a Limiter for r. opts may be nil.
func NewLimiter(r Rate, opts *LimiterOptions) (*Limiter, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("%w: %d per %v (want N >= 1 per positive period)", ErrInvalidRate, r.N, r.Per)
	}
	l := &Limiter{rate: r, now: time.Now}
	if opts != nil {
		l.store = opts.Store
		if opts.Now != nil {
			l.now = opts.Now
		}
	}
	if l.store == nil {
		m, err := NewMemoryStore(nil)
		if err != nil {
			return nil, err
		}
		l.store = m
	}
	return l, nil
}

// Rate returns the limiter's rate.
func (l *Limiter) Rate() Rate { return l.rate }

// Allow is AllowAt(ctx, key, now) with now from the limiter's clock.
func (l *Limiter) Allow(ctx context.Context, key string) (Result, error) {
	return l.AllowAt(ctx, key, l.now())
}

// AllowAt takes one token from key's bucket at now. A denial is a Result with
// Allowed false and RetryAfter set. A non-nil error (store unavailable, key
// invalid, in-memory key cap reached) always comes with Allowed false: the
// event must be denied.
func (l *Limiter) AllowAt(ctx context.Context, key string, now time.Time) (Result, error) {
	res, err := l.store.Take(ctx, key, l.rate, now)
	if err != nil {
		return Result{Limit: l.rate}, err
	}
	return res, nil
}

// Key joins parts into one unambiguous limiter key: each part is prefixed
// with its length, so ("ab", "c") and ("a", "bc") give different keys.
func Key(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 4
	}
	var b strings.Builder
	b.Grow(n)
	var num [20]byte
	for _, p := range parts {
		b.Write(strconv.AppendInt(num[:0], int64(len(p)), 10))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}
