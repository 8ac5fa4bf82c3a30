package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

type budgetShard struct {
	mu        sync.Mutex
	m         map[string]*budgetScope
	lastSweep time.Time
}

// budgetScope holds one scope's counters; it is dropped once all expired.
type budgetScope struct {
	counters map[string]*counter
}

type counter struct {
	v       int64
	expires time.Time
}

// live drops expired counters and reports whether any remain.
func (b *budgetScope) live(now time.Time) bool {
	for name, c := range b.counters {
		if !now.Before(c.expires) {
			delete(b.counters, name)
		}
	}
	return len(b.counters) > 0
}

// Spend implements [BudgetStore]; the shard lock makes it atomic.
func (s *MemoryStore) Spend(_ context.Context, scope string, counters []Counter, mode SpendMode, now time.Time) (SpendResult, error) {
	if err := CheckSpend(scope, counters, mode); err != nil {
		return SpendResult{Failed: -1}, err
	}
	sh := &s.buds[s.shardOf(scope)]
	sh.mu.Lock()
	defer sh.mu.Unlock()

	if now.Sub(sh.lastSweep) >= sweepEvery {
		sh.lastSweep = now
		for k, b := range sh.m {
			if !b.live(now) {
				delete(sh.m, k)
			}
		}
	}
	b := sh.m[scope]
	if b != nil {
		b.live(now)
	}
	res := SpendResult{Failed: -1, Values: make([]int64, len(counters))}
	for i, c := range counters {
		if b != nil {
			if cur := b.counters[c.Name]; cur != nil {
				res.Values[i] = cur.v
			}
		}
		if res.Failed < 0 && c.Max > 0 && res.Values[i]+c.Add > c.Max {
			res.Failed = i
		}
	}
	if mode == SpendCheck || (mode == SpendCommit && res.Failed >= 0) {
		return res, nil
	}
	if b == nil {
		if len(sh.m) >= s.budCap {
			return SpendResult{Failed: -1}, capacityError("budget scopes", s.budCap*numShards)
		}
		b = &budgetScope{counters: make(map[string]*counter, len(counters))}
		sh.m[scope] = b
	}
	for _, c := range counters {
		cur := b.counters[c.Name]
		if cur == nil {
			if len(b.counters) >= maxCountersEach {
				return SpendResult{Failed: -1}, fmt.Errorf("%w: more than %d live counters in budget scope", ErrCapacity, maxCountersEach)
			}
			cur = &counter{expires: now.Add(c.TTL)}
			b.counters[c.Name] = cur
		}
		cur.v += c.Add
	}
	return res, nil
}

// CheckSpend validates the arguments of [BudgetStore.Spend] as [MemoryStore]
// does; other implementations call it first so that all reject the same input.
func CheckSpend(scope string, counters []Counter, mode SpendMode) error {
	if err := CheckKey("budget scope", scope); err != nil {
		return err
	}
	if mode < SpendCheck || mode > SpendForce {
		return fmt.Errorf("%w: unknown spend mode %d", ErrInvalidOptions, mode)
	}
	if len(counters) == 0 || len(counters) > maxCountersEach {
		return fmt.Errorf("%w: %d counters in one spend, want 1 to %d", ErrInvalidOptions, len(counters), maxCountersEach)
	}
	for _, c := range counters {
		if err := CheckKey("counter name", c.Name); err != nil {
			return err
		}
		if c.Add < 0 || c.Max < 0 || c.TTL <= 0 {
			return fmt.Errorf("%w: counter %q has Add %d, Max %d, TTL %v; want Add >= 0, Max >= 0, TTL > 0", ErrInvalidOptions, c.Name, c.Add, c.Max, c.TTL)
		}
	}
	return nil
}
