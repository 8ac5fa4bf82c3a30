package consent

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// MaxNonceLen bounds the nonces a [NonceStore] accepts.
const MaxNonceLen = 128

// NonceGrace is how long past its valid_until a nonce is remembered, so
// that clocks a little apart never let a nonce be used twice.
const NonceGrace = time.Minute

// NonceStore remembers used nonces so each approval runs once (ACP §9 item
// 4). Implementations must be safe for concurrent use, atomic across every
// process sharing them, and fail closed: any doubt is an error.
//
// Run consenttest.TestNonceStore against an implementation.
type NonceStore interface {
	// Use marks nonce as used. It returns nil only the first time a nonce
	// is used; every later use returns an error matching [ErrReplayed]
	// while the nonce is remembered, which is at least until until plus
	// [NonceGrace] (also when until is already past). An empty nonce or one
	// longer than MaxNonceLen wraps [ErrInvalidNonce]; a store failure wraps
	// [ErrUnavailable] or [ErrCapacity].
	Use(ctx context.Context, nonce string, until time.Time) error
}

// CheckNonce returns an error wrapping [ErrInvalidNonce] for an empty nonce
// or one longer than [MaxNonceLen]. Store implementations call it so that
// all refuse the same nonces.
func CheckNonce(nonce string) error {
	if nonce == "" {
		return fmt.Errorf("%w: empty", ErrInvalidNonce)
	}
	if len(nonce) > MaxNonceLen {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidNonce, len(nonce), MaxNonceLen)
	}
	return nil
}

// MemoryNonceOptions configure a [MemoryNonceStore]. nil means defaults.
type MemoryNonceOptions struct {
	// MaxNonces caps the nonces remembered at once (default 100,000). When
	// the store is full of unexpired nonces, Use fails with [ErrCapacity]
	// (fail closed).
	MaxNonces int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultMaxNonces is MemoryNonceOptions.MaxNonces when zero.
const DefaultMaxNonces = 100_000

// MemoryNonceStore is the in-process [NonceStore]. Memory is bounded by
// MaxNonces; nonces are forgotten NonceGrace after their valid_until, swept
// at most once a second while serving calls (no goroutine). Use
// consent/redisnonce when several replicas verify proofs.
//
// A MemoryNonceStore is safe for concurrent use.
type MemoryNonceStore struct {
	max int
	now func() time.Time

	mu        sync.Mutex
	seen      map[string]time.Time // nonce -> forget after
	lastSweep time.Time
}

var _ NonceStore = (*MemoryNonceStore)(nil)

// NewMemoryNonceStore returns an empty store. opts may be nil.
func NewMemoryNonceStore(opts *MemoryNonceOptions) (*MemoryNonceStore, error) {
	s := &MemoryNonceStore{max: DefaultMaxNonces, now: time.Now, seen: make(map[string]time.Time)}
	if opts != nil {
		if opts.MaxNonces < 0 {
			return nil, fmt.Errorf("%w: MemoryNonceOptions.MaxNonces is %d, want >= 0 (0 means %d)", ErrInvalidOptions, opts.MaxNonces, DefaultMaxNonces)
		}
		if opts.MaxNonces > 0 {
			s.max = opts.MaxNonces
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	return s, nil
}

// Use implements [NonceStore].
func (s *MemoryNonceStore) Use(ctx context.Context, nonce string, until time.Time) error {
	if err := CheckNonce(nonce); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	now := s.now()
	forget := until.Add(NonceGrace)
	if min := now.Add(NonceGrace); forget.Before(min) {
		forget = min
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if exp, ok := s.seen[nonce]; ok && now.Before(exp) {
		return proofErr(FailReplayed, "nonce already used")
	}
	if len(s.seen) >= s.max || now.Sub(s.lastSweep) >= time.Second {
		s.sweep(now)
	}
	if len(s.seen) >= s.max {
		return fmt.Errorf("%w: %d unexpired nonces held (MemoryNonceOptions.MaxNonces)", ErrCapacity, len(s.seen))
	}
	s.seen[nonce] = forget
	return nil
}

func (s *MemoryNonceStore) sweep(now time.Time) {
	s.lastSweep = now
	for n, exp := range s.seen {
		if !now.Before(exp) {
			delete(s.seen, n)
		}
	}
}

// Len reports how many nonces the store holds, expired ones not yet swept
// included.
func (s *MemoryNonceStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}
