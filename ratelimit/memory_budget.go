package ratelimit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

type budgetShard struct {
	mu        sync.Mutex
	m         map[string]*budgetScope
	lastSweep time.Time
	nextEvict time.Time // a full shard has no scope to evict before this
}

// budgetScope holds one scope's counters; it is dropped once all expired.
type budgetScope struct {
	counters map[string]*counter
}

type counter struct {
	v       int64
	max     int64 // the counter's limit at its last spend; 0 means none
	expires time.Time
}

// evictable is the most an eviction may give back: a scope that spent more
// than this share of any limit is near its limit and is never evicted.
const evictable = 0.5

// used is the largest share of a limit the scope has spent; a counter
// without a limit counts as fully used, so it is never evicted for free.
func (b *budgetScope) used() float64 {
	u := 0.0
	for _, c := range b.counters {
		switch {
		case c.v == 0:
		case c.max <= 0:
			return 1
		default:
			u = max(u, float64(c.v)/float64(c.max))
		}
	}
	return u
}

// evictBudgets makes room in a full shard (locked): scopes with nothing
// spent first (lossless), then the least-used ones that spent at most half
// of every limit, up to an eighth of the shard at once. It reports whether
// it freed anything.
func (s *MemoryStore) evictBudgets(sh *budgetShard, now time.Time) bool {
	type cand struct {
		k string
		u float64
	}
	if now.Before(sh.nextEvict) {
		return false
	}
	var cs []cand
	soonest := time.Time{}
	for k, b := range sh.m {
		if !b.live(now) {
			delete(sh.m, k)
			continue
		}
		if u := b.used(); u <= evictable {
			cs = append(cs, cand{k, u})
		}
		for _, c := range b.counters {
			if soonest.IsZero() || c.expires.Before(soonest) {
				soonest = c.expires
			}
		}
	}
	if len(sh.m) < s.budCap {
		return true
	}
	if len(cs) == 0 {
		// Spending only makes scopes more used: nothing frees up before a
		// counter expires.
		sh.nextEvict = soonest
		return false
	}
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.u < b.u:
			return -1
		case a.u > b.u:
			return 1
		}
		return 0
	})
	for i := 0; i < len(cs) && i < max(1, s.budCap/8); i++ {
		delete(sh.m, cs[i].k)
	}
	return len(cs) > 0
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
	if mode == SpendRefund {
		if b != nil {
			for _, c := range counters {
				if cur := b.counters[c.Name]; cur != nil {
					cur.v = max(0, cur.v-c.Add)
				}
			}
		}
		return SpendResult{Failed: -1, Values: res.Values}, nil
	}
	if b == nil {
		if len(sh.m) >= s.budCap && !s.evictBudgets(sh, now) {
			return SpendResult{Failed: -1}, capacityError("agents with live budget counters", "MemoryOptions.MaxBudgetScopes", s.budCap*numShards,
				"every tracked agent has spent more than half of a limit; counters end with their window, or raise the cap")
		}
		b = &budgetScope{counters: make(map[string]*counter, len(counters))}
		sh.m[scope] = b
	}
	for _, c := range counters {
		cur := b.counters[c.Name]
		if cur == nil {
			if len(b.counters) >= maxCountersEach {
				return SpendResult{Failed: -1}, capacityError("live counters of one budget scope", "maxCountersEach", maxCountersEach, "use fewer distinct counter names")
			}
			cur = &counter{expires: now.Add(c.TTL)}
			b.counters[c.Name] = cur
		}
		cur.v += c.Add
		cur.max = c.Max
	}
	return res, nil
}

// CheckSpend validates the arguments of [BudgetStore.Spend] as [MemoryStore]
// does; other implementations call it first so that all reject the same input.
func CheckSpend(scope string, counters []Counter, mode SpendMode) error {
	if err := CheckKey("budget scope", scope); err != nil {
		return err
	}
	if mode < SpendCheck || mode > SpendRefund {
		return fmt.Errorf("%w: unknown spend mode %d", ErrInvalidOptions, mode)
	}
	if len(counters) == 0 || len(counters) > maxCountersEach {
		return fmt.Errorf("%w: %d counters in one spend, want 1 to %d", ErrInvalidOptions, len(counters), maxCountersEach)
	}
	for _, c := range counters {
		if err := CheckKey("counter name", c.Name); err != nil {
			return err
		}
		if c.Add < 0 || c.Max < 0 || c.TTL <= 0 || c.Age < 0 {
			return fmt.Errorf("%w: counter %q has Add %d, Max %d, TTL %v, Age %v; want Add >= 0, Max >= 0, TTL > 0, Age >= 0", ErrInvalidOptions, c.Name, c.Add, c.Max, c.TTL, c.Age)
		}
	}
	return nil
}
