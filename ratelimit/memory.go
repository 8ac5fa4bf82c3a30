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
	// MaxKeys caps the rate-limit buckets held at once (default 100,000;
	// rounded up to a multiple of 64, the shard count). Buckets that have
	// refilled completely are equivalent to absent and evicted first; at
	// the cap, the fullest buckets that still hold at least half their
	// tokens are evicted (bounded loss: an owner regains at most what it
	// had spent, never more than half its limit); a new key is refused with
	// a [*CapacityError] only when every bucket is past half spent.
	MaxKeys int
	// MaxBudgetScopes caps the agents with live budget counters (default
	// 100,000; same rounding). Counters are dropped when their window ends;
	// at the cap the least-used scopes that spent at most half of every
	// limit are evicted, then new scopes are refused with a [*CapacityError].
	MaxBudgetScopes int
	// MaxConversations caps the conversations tracked by a [Guard] (default
	// 100,000; same rounding). A conversation is dropped after
	// StepParams.ConversationTTL without activity. At the cap the least
	// recently active ones are evicted, each leaving a 16-byte tombstone
	// that refuses it at every step (CodeStateLost: start a new
	// conversation) until it would have expired, so no committed step
	// becomes replayable; when the tombstones are full too, new
	// conversations are refused with a [*CapacityError].
	MaxConversations int
	// MaxConversationsPerOwner caps the live conversations of one owner
	// (default 10,000), so that one agent's flood of conversations exhausts
	// only its own share. The owner of a conversation scope is its first
	// [Key] part: the agent, for the scopes a [Guard] builds.
	MaxConversationsPerOwner int
}

const (
	numShards       = 64
	defaultMaxKeys  = 100_000
	sweepEvery      = time.Second // least time between two sweeps of one shard
	maxCountersEach = 64          // budget counters per scope
	defaultPerOwner = 10_000      // live conversations per owner
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
	ownerCap                 int
	owners                   [numShards]ownerShard
	tokens                   tokenSource
}

// ownerShard counts live conversations per owner.
type ownerShard struct {
	mu sync.Mutex
	m  map[string]int
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
	switch {
	case o.MaxConversationsPerOwner < 0:
		return nil, fmt.Errorf("%w: MemoryOptions.MaxConversationsPerOwner is %d, want >= 0 (0 means %d)", ErrInvalidOptions, o.MaxConversationsPerOwner, defaultPerOwner)
	case o.MaxConversationsPerOwner == 0:
		s.ownerCap = defaultPerOwner
	default:
		s.ownerCap = o.MaxConversationsPerOwner
	}
	for i := range s.rates {
		s.buds[i].m = make(map[string]*budgetScope)
		s.convs[i].m = make(map[string]*conversation)
		s.owners[i].m = make(map[string]int)
		s.convs[i].tombs.init(s.convCap * tombsPerConv)
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

func capacityError(what, cap string, limit int, hint string) error {
	return &CapacityError{What: what, Cap: cap, Limit: limit, Hint: hint}
}

// Owner returns the owner of a conversation scope: its first [Key] part
// (the agent, for the scopes a [Guard] builds), or the whole scope when it
// is not in Key form. Stores cap live conversations per owner.
func Owner(scope string) string {
	i := 0
	for i < len(scope) && i < 8 && scope[i] >= '0' && scope[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(scope) || scope[i] != ':' {
		return scope
	}
	n, err := strconv.Atoi(scope[:i])
	if err != nil || n > len(scope)-i-1 {
		return scope
	}
	return scope[i+1 : i+1+n]
}

// addOwner counts one more conversation of owner unless it is at the cap.
func (s *MemoryStore) addOwner(owner string) bool {
	sh := &s.owners[s.shardOf(owner)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m[owner] >= s.ownerCap {
		return false
	}
	sh.m[owner]++
	return true
}

// dropOwner counts one conversation of owner less.
func (s *MemoryStore) dropOwner(owner string) {
	sh := &s.owners[s.shardOf(owner)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m[owner] <= 1 {
		delete(sh.m, owner)
		return
	}
	sh.m[owner]--
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
