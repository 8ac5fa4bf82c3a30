package ratelimit

import (
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"
	"time"
)

// MemoryOptions configure a [MemoryStore]. The zero value and nil mean defaults.
type MemoryOptions struct {
	// MaxKeys caps the rate-limit buckets held at once (default 100,000).
	// When every shard is full, Take for a new key returns [ErrCapacity]
	// (fail closed); existing keys keep working. Buckets that have refilled
	// completely, which happens at most one period after a key's last use,
	// are evicted. The cap is rounded up to a multiple of 64 (the shard count).
	MaxKeys int
	// MaxBudgetScopes caps the agents with live budget counters (default
	// 100,000; same rounding and fail-closed rule). Counters are dropped when
	// their window ends.
	MaxBudgetScopes int
	// MaxConversations caps the conversations tracked by a [Guard] (default
	// 100,000; same rounding and fail-closed rule). A conversation is dropped
	// after StepParams.ConversationTTL without activity.
	MaxConversations int
}

const (
	numShards       = 64
	defaultMaxKeys  = 100_000
	sweepEvery      = time.Second // least time between two sweeps of one shard
	maxCountersEach = 64          // budget counters per scope
)

// MemoryStore is the in-memory [Store], the default of [NewLimiter],
// [NewBudget] and [NewGuard]. Its memory is bounded by the caps in
// [MemoryOptions] and [MaxKeyLen]: about 170 bytes per rate key including a
// short key (measured by TestKeyFlood: 100,032 keys in 16 MB), so the default
// cap costs under 20 MB. It starts no goroutines: eviction happens while
// serving calls, at most once per second per shard.
//
// A MemoryStore is safe for concurrent use. State is per process: use
// redisstore when several replicas must share limits.
type MemoryStore struct {
	seed  maphash.Seed
	rates [numShards]rateShard
	buds  [numShards]budgetShard
	convs [numShards]convShard

	rateCap, budCap, convCap int // per shard
	tokens                   tokenSource
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store. opts may be nil.
func NewMemoryStore(opts *MemoryOptions) (*MemoryStore, error) {
	var o MemoryOptions
	if opts != nil {
		o = *opts
	}
	per := func(name string, n int) (int, error) {
		if n < 0 {
			return 0, fmt.Errorf("%w: MemoryOptions.%s is %d, want >= 0 (0 means %d)", ErrInvalidOptions, name, n, defaultMaxKeys)
		}
		if n == 0 {
			n = defaultMaxKeys
		}
		return (n + numShards - 1) / numShards, nil
	}
	s := &MemoryStore{seed: maphash.MakeSeed()}
	var err error
	if s.rateCap, err = per("MaxKeys", o.MaxKeys); err != nil {
		return nil, err
	}
	if s.budCap, err = per("MaxBudgetScopes", o.MaxBudgetScopes); err != nil {
		return nil, err
	}
	if s.convCap, err = per("MaxConversations", o.MaxConversations); err != nil {
		return nil, err
	}
	for i := range s.rates {
		s.buds[i].m = make(map[string]*budgetScope)
		s.convs[i].m = make(map[string]*conversation)
	}
	return s, nil
}

// Len reports how many rate keys, budget scopes and conversations the store
// holds right now.
func (s *MemoryStore) Len() (keys, budgetScopes, conversations int) {
	for i := range s.rates {
		s.rates[i].mu.Lock()
		keys += s.rates[i].n
		s.rates[i].mu.Unlock()
		s.buds[i].mu.Lock()
		budgetScopes += len(s.buds[i].m)
		s.buds[i].mu.Unlock()
		s.convs[i].mu.Lock()
		conversations += len(s.convs[i].m)
		s.convs[i].mu.Unlock()
	}
	return
}

// Caps reports the effective caps (after rounding) of rate keys, budget scopes
// and conversations.
func (s *MemoryStore) Caps() (keys, budgetScopes, conversations int) {
	return s.rateCap * numShards, s.budCap * numShards, s.convCap * numShards
}

func (s *MemoryStore) shardOf(key string) int {
	return int(maphash.String(s.seed, key) % numShards)
}

func capacityError(what string, limit int) error {
	return fmt.Errorf("%w: the in-memory store already holds its maximum of about %d %s (MemoryOptions); retry when idle ones expire or raise the cap", ErrCapacity, limit, what)
}

// tokenSource hands out reservation tokens unique within the process.
type tokenSource struct {
	mu sync.Mutex
	n  uint64
}

func (t *tokenSource) next() string {
	t.mu.Lock()
	t.n++
	n := t.n
	t.mu.Unlock()
	return strconv.FormatUint(n, 36)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
