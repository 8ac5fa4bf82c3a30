package storetest

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Model is a slow, obviously correct token bucket for one [ratelimit.Rate]
// and any number of keys, in exact integer arithmetic: the credit of a key is
// its tokens times Rate.Per, so refilling for d adds d*N and a token costs
// Per. Buckets start full. Time must not go backwards.
type Model struct {
	n, per int64 // N and Per in nanoseconds
	keys   map[string]*modelBucket
}

type modelBucket struct {
	credit int64 // tokens * per, at last
	last   time.Time
}

// NewModel returns a model of r.
func NewModel(r ratelimit.Rate) *Model {
	return &Model{n: int64(r.N), per: int64(r.Per), keys: map[string]*modelBucket{}}
}

// uncapped returns key's credit at now before the cap at N tokens.
func (m *Model) uncapped(key string, now time.Time) int64 {
	b := m.keys[key]
	if b == nil {
		return m.n * m.per
	}
	return b.credit + int64(now.Sub(b.last))*m.n
}

// Take takes a token at now if there is a whole one. It returns whether it
// did, the whole tokens left, and when denied the time until a token is back.
func (m *Model) Take(key string, now time.Time) (allowed bool, remaining int, retryAfter time.Duration) {
	c := min(m.uncapped(key, now), m.n*m.per)
	if c >= m.per {
		c -= m.per
		allowed = true
	} else {
		retryAfter = time.Duration((m.per - c + m.n - 1) / m.n)
	}
	m.keys[key] = &modelBucket{credit: c, last: now}
	return allowed, int(c / m.per), retryAfter
}

// Margin is how far now is from the nearest instant at which Take's answer
// (allowed, remaining) for key would change. Comparing an implementation
// whose arithmetic rounds (floats, microseconds) against the model is fair
// only at instants with a margin wider than that rounding.
func (m *Model) Margin(key string, now time.Time) time.Duration {
	if m.keys[key] == nil {
		return time.Duration(1<<63 - 1) // a new bucket is full at any instant
	}
	c := m.uncapped(key, now)
	full := m.n * m.per
	if c >= full {
		return time.Duration((c - full) / m.n) // distance to the cap
	}
	r := c % m.per
	return time.Duration(min(r, m.per-r) / m.n)
}
