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

// ScopedNonceStore is a [NonceStore] that also bounds the unexpired nonces
// each scope holds (a scope is an agent id): one agent that fills the store
// with its own approvals is refused ([ErrCapacity], naming its quota) while
// every other agent's approvals still work. A nonce is single-use across
// scopes: using it again in any scope is [ErrReplayed].
type ScopedNonceStore interface {
	NonceStore
	UseScoped(ctx context.Context, scope, nonce string, until time.Time) error
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
	// MaxPerScope caps the unexpired nonces one scope holds through
	// UseScoped (default DefaultMaxNoncesPerScope).
	MaxPerScope int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultMaxNonces is MemoryNonceOptions.MaxNonces when zero.
const DefaultMaxNonces = 100_000

// DefaultMaxNoncesPerScope is MemoryNonceOptions.MaxPerScope when zero: a
// hundredth of the store, so no one scope can fill it.
const DefaultMaxNoncesPerScope = 1_000

// MemoryNonceStore is the in-process [NonceStore]. Memory is bounded by
// MaxNonces; nonces are forgotten NonceGrace after their valid_until, swept
// at most once a second while serving calls (no goroutine). Use
// consent/redisnonce when several replicas verify proofs.
//
// A MemoryNonceStore is safe for concurrent use.
type MemoryNonceStore struct {
	max, perScope int
	now           func() time.Time

	mu        sync.Mutex
	seen      map[string]seenNonce
	scopes    map[string]int // unexpired nonces per scope
	lastSweep time.Time
}

type seenNonce struct {
	forget time.Time // forget after
	scope  string
}

var _ ScopedNonceStore = (*MemoryNonceStore)(nil)

// NewMemoryNonceStore returns an empty store. opts may be nil.
func NewMemoryNonceStore(opts *MemoryNonceOptions) (*MemoryNonceStore, error) {
	s := &MemoryNonceStore{max: DefaultMaxNonces, perScope: DefaultMaxNoncesPerScope, now: time.Now,
		seen: make(map[string]seenNonce), scopes: map[string]int{}}
	if opts != nil {
		if opts.MaxNonces < 0 || opts.MaxPerScope < 0 {
			return nil, fmt.Errorf("%w: MemoryNonceOptions.MaxNonces %d and MaxPerScope %d, want >= 0 (0 means default)", ErrInvalidOptions, opts.MaxNonces, opts.MaxPerScope)
		}
		if opts.MaxNonces > 0 {
			s.max = opts.MaxNonces
		}
		if opts.MaxPerScope > 0 {
			s.perScope = opts.MaxPerScope
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	return s, nil
}

// Use implements [NonceStore]. Nonces used without a scope count against
// the store's MaxNonces only.
func (s *MemoryNonceStore) Use(ctx context.Context, nonce string, until time.Time) error {
	return s.UseScoped(ctx, "", nonce, until)
}

// UseScoped implements [ScopedNonceStore]; scope "" is unbounded per scope.
func (s *MemoryNonceStore) UseScoped(ctx context.Context, scope, nonce string, until time.Time) error {
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
	if e, ok := s.seen[nonce]; ok && now.Before(e.forget) {
		return proofErr(FailReplayed, "nonce already used")
	}
	full := len(s.seen) >= s.max || (scope != "" && s.scopes[scope] >= s.perScope)
	if full || now.Sub(s.lastSweep) >= time.Second {
		s.sweep(now)
	}
	if scope != "" && s.scopes[scope] >= s.perScope {
		return fmt.Errorf("%w: this agent holds %d unexpired approvals (MemoryNonceOptions.MaxPerScope); others are not affected", ErrCapacity, s.scopes[scope])
	}
	if len(s.seen) >= s.max {
		return fmt.Errorf("%w: %d unexpired nonces held (MemoryNonceOptions.MaxNonces)", ErrCapacity, len(s.seen))
	}
	if old, ok := s.seen[nonce]; ok { // expired, not yet swept
		s.forget(nonce, old)
	}
	s.seen[nonce] = seenNonce{forget: forget, scope: scope}
	if scope != "" {
		s.scopes[scope]++
	}
	return nil
}

func (s *MemoryNonceStore) sweep(now time.Time) {
	s.lastSweep = now
	for n, e := range s.seen {
		if !now.Before(e.forget) {
			s.forget(n, e)
		}
	}
}

func (s *MemoryNonceStore) forget(n string, e seenNonce) {
	delete(s.seen, n)
	if e.scope != "" {
		if s.scopes[e.scope]--; s.scopes[e.scope] <= 0 {
			delete(s.scopes, e.scope)
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
