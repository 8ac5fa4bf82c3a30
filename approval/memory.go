package approval

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"
)

// Defaults of the in-memory stores.
const (
	DefaultMaxChallenges         = 100_000
	DefaultRetention             = time.Minute
	DefaultMaxCredentials        = 100_000
	DefaultMaxCredentialsPerUser = 16
)

// MemoryChallengeOptions configure a [MemoryChallengeStore]. nil means
// defaults; zero fields too.
type MemoryChallengeOptions struct {
	// MaxChallenges caps stored challenges, pending or not (default
	// 100,000). When full, Put fails with ErrCapacity after reaping.
	MaxChallenges int
	// Retention keeps a challenge past its ExpiresAt (default one minute), so
	// that it reports consumed or expired rather than unknown.
	Retention time.Duration
}

// MemoryChallengeStore is a bounded in-process [ChallengeStore]. Expired
// challenges are reaped on every call (in expiry order, amortized
// O(log n)); nothing runs in the background. Safe for concurrent use.
type MemoryChallengeStore struct {
	max       int
	retention time.Duration

	mu      sync.Mutex
	entries map[string]*Challenge
	byExp   expiryHeap
}

var _ ChallengeStore = (*MemoryChallengeStore)(nil)

// NewMemoryChallengeStore returns an empty store. opts may be nil.
func NewMemoryChallengeStore(opts *MemoryChallengeOptions) (*MemoryChallengeStore, error) {
	s := &MemoryChallengeStore{max: DefaultMaxChallenges, retention: DefaultRetention, entries: map[string]*Challenge{}}
	if opts != nil {
		if opts.MaxChallenges < 0 || opts.Retention < 0 {
			return nil, fmt.Errorf("%w: MemoryChallengeOptions fields must be >= 0", ErrInvalidOptions)
		}
		if opts.MaxChallenges > 0 {
			s.max = opts.MaxChallenges
		}
		if opts.Retention > 0 {
			s.retention = opts.Retention
		}
	}
	return s, nil
}

// Len returns the number of stored challenges (for tests and metrics).
func (s *MemoryChallengeStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Put implements [ChallengeStore].
func (s *MemoryChallengeStore) Put(_ context.Context, c *Challenge, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reap(now)
	if _, ok := s.entries[c.ID]; ok {
		return fmt.Errorf("%w: challenge id", ErrDuplicate)
	}
	if len(s.entries) >= s.max {
		return fmt.Errorf("%w: %d challenges pending", ErrCapacity, len(s.entries))
	}
	cp := cloneChallenge(c)
	cp.Consumed = false
	s.entries[c.ID] = cp
	heap.Push(&s.byExp, expiryItem{id: c.ID, at: c.ExpiresAt.Add(s.retention)})
	return nil
}

// Get implements [ChallengeStore].
func (s *MemoryChallengeStore) Get(_ context.Context, id string, now time.Time) (*Challenge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reap(now)
	c, ok := s.entries[id]
	if !ok {
		return nil, ErrNotFound
	}
	return cloneChallenge(c), nil
}

// Consume implements [ChallengeStore].
func (s *MemoryChallengeStore) Consume(_ context.Context, id string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reap(now)
	c, ok := s.entries[id]
	switch {
	case !ok:
		return ErrNotFound
	case c.Consumed:
		return ErrConsumed
	case !now.Before(c.ExpiresAt):
		return ErrExpired
	}
	c.Consumed = true
	return nil
}

// reap drops challenges whose retention has passed. Callers hold s.mu.
func (s *MemoryChallengeStore) reap(now time.Time) {
	for len(s.byExp) > 0 && !now.Before(s.byExp[0].at) {
		it := heap.Pop(&s.byExp).(expiryItem)
		delete(s.entries, it.id)
	}
}

func cloneChallenge(c *Challenge) *Challenge {
	cp := *c
	cp.UserHandle = append([]byte(nil), c.UserHandle...)
	cp.Bytes = append([]byte(nil), c.Bytes...)
	return &cp
}

type expiryItem struct {
	id string
	at time.Time
}

type expiryHeap []expiryItem

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryItem)) }
func (h *expiryHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// MemoryCredentialOptions configure a [MemoryCredentialStore] or a
// [FileCredentialStore]. nil means defaults; zero fields too.
type MemoryCredentialOptions struct {
	MaxCredentials        int // total (default 100,000)
	MaxCredentialsPerUser int // per user handle (default 16)
}

// MemoryCredentialStore is a bounded in-process [CredentialStore]; its
// content is lost on restart (see [FileCredentialStore]). Safe for
// concurrent use.
type MemoryCredentialStore struct {
	mu sync.RWMutex
	t  credTable
}

var _ CredentialStore = (*MemoryCredentialStore)(nil)

// NewMemoryCredentialStore returns an empty store. opts may be nil.
func NewMemoryCredentialStore(opts *MemoryCredentialOptions) (*MemoryCredentialStore, error) {
	t, err := newCredTable(opts)
	if err != nil {
		return nil, err
	}
	return &MemoryCredentialStore{t: t}, nil
}

// Add implements [CredentialStore].
func (s *MemoryCredentialStore) Add(_ context.Context, c *Credential) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.add(c)
}

// List implements [CredentialStore].
func (s *MemoryCredentialStore) List(_ context.Context, user []byte) ([]Credential, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.list(user), nil
}

// Get implements [CredentialStore].
func (s *MemoryCredentialStore) Get(_ context.Context, user, id []byte) (*Credential, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.get(user, id)
}

// UpdateCounter implements [CredentialStore].
func (s *MemoryCredentialStore) UpdateCounter(_ context.Context, user, id []byte, count uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.t.updateCounter(user, id, count)
	return err
}
