package grant

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Defaults of [MemoryOptions].
const (
	DefaultMaxPerPrincipal = 32
	DefaultMaxPrincipals   = 10_000
)

// MemoryOptions bound a [MemoryStore]. nil means defaults; zero fields too.
type MemoryOptions struct {
	// MaxPerPrincipal caps the live grants of one principal (default
	// DefaultMaxPerPrincipal): one user's approvals never crowd out
	// another's.
	MaxPerPrincipal int
	// MaxPrincipals caps the principals holding grants (default
	// DefaultMaxPrincipals).
	MaxPrincipals int
}

// MemoryStore is a [Store] in one process's memory. It is safe for
// concurrent use; one mutex makes Consume atomic.
type MemoryStore struct {
	o  MemoryOptions
	mu sync.Mutex
	by map[string]map[string]*Grant // principal -> id -> grant
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts *MemoryOptions) (*MemoryStore, error) {
	o := MemoryOptions{MaxPerPrincipal: DefaultMaxPerPrincipal, MaxPrincipals: DefaultMaxPrincipals}
	if opts != nil {
		if opts.MaxPerPrincipal < 0 || opts.MaxPrincipals < 0 {
			return nil, fmt.Errorf("%w: MemoryOptions %+v", ErrInvalidOptions, *opts)
		}
		if opts.MaxPerPrincipal > 0 {
			o.MaxPerPrincipal = opts.MaxPerPrincipal
		}
		if opts.MaxPrincipals > 0 {
			o.MaxPrincipals = opts.MaxPrincipals
		}
	}
	return &MemoryStore{o: o, by: map[string]map[string]*Grant{}}, nil
}

// sweepLocked removes the expired grants of principal, and with spent
// the spent ones too, and returns the expired ones that had uses left (a
// spent grant ended with its last use).
func (s *MemoryStore) sweepLocked(principal string, now time.Time, spent bool) []Grant {
	var out []Grant
	for id, g := range s.by[principal] {
		expired := !g.Expires.After(now)
		if expired && g.Left != 0 {
			out = append(out, *g)
		}
		if expired || (spent && g.Left == 0) {
			delete(s.by[principal], id)
		}
	}
	if len(s.by[principal]) == 0 {
		delete(s.by, principal)
	}
	Sort(out)
	return out
}

// Create implements [Store].
func (s *MemoryStore) Create(ctx context.Context, g Grant, now time.Time) ([]Grant, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.by[g.Principal][g.ID]; ok {
		return nil, nil // this Create again: its uses taken since stay taken
	}
	expired := s.sweepLocked(g.Principal, now, true)
	m := s.by[g.Principal]
	if m == nil {
		if len(s.by) >= s.o.MaxPrincipals {
			for p := range s.by {
				expired = append(expired, s.sweepLocked(p, now, true)...)
			}
		}
		if len(s.by) >= s.o.MaxPrincipals {
			return expired, fmt.Errorf("%w: %d principals hold grants", ErrCapacity, len(s.by))
		}
		m = map[string]*Grant{}
		s.by[g.Principal] = m
	}
	if len(m) >= s.o.MaxPerPrincipal {
		return expired, fmt.Errorf("%w: the principal holds %d live grants; revoke one first", ErrCapacity, len(m))
	}
	c := g
	c.Left = g.Uses
	if g.Uses == 0 {
		c.Left = -1
	}
	m[g.ID] = &c
	return expired, nil
}

// Consume implements [Store].
func (s *MemoryStore) Consume(ctx context.Context, q Query, now time.Time) (Use, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := Use{Expired: s.sweepLocked(q.Principal, now, false)}
	var best *Grant
	for _, g := range s.by[q.Principal] {
		if g.Left != 0 && g.Covers(q) && (best == nil || Less(g, best)) {
			best = g
		}
	}
	if best == nil {
		return u, ErrNoGrant
	}
	if best.Left > 0 {
		best.Left--
	}
	u.Grant = *best
	return u, nil
}

// List implements [Store].
func (s *MemoryStore) List(ctx context.Context, principal string, now time.Time) ([]Grant, []Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var live, expired []Grant
	for p := range s.by {
		if principal != "" && p != principal {
			continue
		}
		expired = append(expired, s.sweepLocked(p, now, false)...)
		for _, g := range s.by[p] {
			if g.Left != 0 {
				live = append(live, *g)
			}
		}
	}
	Sort(live)
	Sort(expired)
	return live, expired, nil
}

// Revoke implements [Store].
func (s *MemoryStore) Revoke(ctx context.Context, principal, id string) (Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.by[principal][id]
	if !ok {
		return Grant{}, ErrNotFound
	}
	delete(s.by[principal], id)
	if len(s.by[principal]) == 0 {
		delete(s.by, principal)
	}
	return *g, nil
}

// Refund implements [Store].
func (s *MemoryStore) Refund(ctx context.Context, g Grant, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.by[g.Principal][g.ID]
	if !ok || !st.Expires.After(now) {
		return ErrNotFound
	}
	if st.Left >= 0 && st.Left < st.Uses {
		st.Left++
	}
	return nil
}
