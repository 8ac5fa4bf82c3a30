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
	DefaultMaxPendingPerUser     = 64
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
	// MaxPendingPerUser caps the pending challenges (neither consumed nor
	// expired) of one user handle, approval and enrollment alike (default
	// 64), so that one user cannot fill the store for everyone. Put beyond it
	// fails with ErrCapacity until one is consumed or expires.
	MaxPendingPerUser int
	// Retention keeps a challenge past its ExpiresAt (default one minute), so
	// that it reports consumed or expired rather than unknown.
	Retention time.Duration
}

// MemoryChallengeStore is a bounded in-process [ChallengeStore]. Expired
// challenges are reaped on every call (in expiry order, amortized
// O(log n)); nothing runs in the background. Safe for concurrent use.
type MemoryChallengeStore struct {
	max, maxPerUser int
	retention       time.Duration

	mu      sync.Mutex
	entries map[string]*memChallenge
	pending map[string]int // user handle -> pending challenges; no zero entries
	byExp   expiryHeap     // two events per challenge: expiry, then forgetting
}

type memChallenge struct {
	c       *Challenge
	pending bool // counted in MemoryChallengeStore.pending
}

var _ ChallengeStore = (*MemoryChallengeStore)(nil)

// NewMemoryChallengeStore returns an empty store. opts may be nil.
func NewMemoryChallengeStore(opts *MemoryChallengeOptions) (*MemoryChallengeStore, error) {
	s := &MemoryChallengeStore{max: DefaultMaxChallenges, maxPerUser: DefaultMaxPendingPerUser, retention: DefaultRetention,
		entries: map[string]*memChallenge{}, pending: map[string]int{}}
	if opts != nil {
		if opts.MaxChallenges < 0 || opts.MaxPendingPerUser < 0 || opts.Retention < 0 {
			return nil, fmt.Errorf("%w: MemoryChallengeOptions fields must be >= 0", ErrInvalidOptions)
		}
		if opts.MaxChallenges > 0 {
			s.max = opts.MaxChallenges
		}
		if opts.MaxPendingPerUser > 0 {
			s.maxPerUser = opts.MaxPendingPerUser
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
		return fmt.Errorf("%w: %d challenges held (MemoryChallengeOptions.MaxChallenges)", ErrCapacity, len(s.entries))
	}
	user := string(c.UserHandle)
	if n := s.pending[user]; n >= s.maxPerUser {
		return fmt.Errorf("%w: the user has %d pending challenges (MemoryChallengeOptions.MaxPendingPerUser); retry when one is used or expires", ErrCapacity, n)
	}
	cp := cloneChallenge(c)
	cp.Consumed = false
	e := &memChallenge{c: cp}
	s.entries[c.ID] = e
	if now.Before(c.ExpiresAt) {
		e.pending = true
		s.pending[user]++
		heap.Push(&s.byExp, expiryItem{id: c.ID, at: c.ExpiresAt, expiry: true})
	}
	heap.Push(&s.byExp, expiryItem{id: c.ID, at: c.ExpiresAt.Add(s.retention)})
	return nil
}

// Get implements [ChallengeStore].
func (s *MemoryChallengeStore) Get(_ context.Context, id string, now time.Time) (*Challenge, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reap(now)
	e, ok := s.entries[id]
	if !ok {
		return nil, ErrNotFound
	}
	return cloneChallenge(e.c), nil
}

// Consume implements [ChallengeStore].
func (s *MemoryChallengeStore) Consume(_ context.Context, id string, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reap(now)
	e, ok := s.entries[id]
	switch {
	case !ok:
		return ErrNotFound
	case e.c.Consumed:
		return ErrConsumed
	case !now.Before(e.c.ExpiresAt):
		return ErrExpired
	}
	e.c.Consumed = true
	s.unpend(e)
	return nil
}

// reap ends the pending state of expired challenges and drops those whose
// retention has passed. Callers hold s.mu.
func (s *MemoryChallengeStore) reap(now time.Time) {
	for len(s.byExp) > 0 && !now.Before(s.byExp[0].at) {
		it := heap.Pop(&s.byExp).(expiryItem)
		e, ok := s.entries[it.id]
		if !ok {
			continue
		}
		s.unpend(e)
		if !it.expiry {
			delete(s.entries, it.id)
		}
	}
}

// unpend stops counting e as pending. Callers hold s.mu.
func (s *MemoryChallengeStore) unpend(e *memChallenge) {
	if !e.pending {
		return
	}
	e.pending = false
	user := string(e.c.UserHandle)
	if s.pending[user] <= 1 {
		delete(s.pending, user)
	} else {
		s.pending[user]--
	}
}

func cloneChallenge(c *Challenge) *Challenge {
	cp := *c
	cp.UserHandle = append([]byte(nil), c.UserHandle...)
	cp.Bytes = append([]byte(nil), c.Bytes...)
	return &cp
}

type expiryItem struct {
	id     string
	at     time.Time
	expiry bool // the end of the pending state, not of the retention
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

var (
	_ CredentialStore      = (*MemoryCredentialStore)(nil)
	_ FirstCredentialAdder = (*MemoryCredentialStore)(nil)
)

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
	return s.t.add(c, false)
}

// AddFirst implements [FirstCredentialAdder].
func (s *MemoryCredentialStore) AddFirst(_ context.Context, c *Credential) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.add(c, true)
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
