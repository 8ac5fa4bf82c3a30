package consent

import (
	"context"
	"fmt"
	"sync"
)

// TrustLevel is an agent's trust level (QWED-Agent v1.1 §8.1). It decides,
// on top of the policy, which risk levels need a human's consent. The zero
// value is TrustUntrusted: everything needs consent.
type TrustLevel int

// The levels of QWED §8.1, plus TrustSuspended (QWED §8.3 "principal
// complaint: suspend").
const (
	TrustSuspended  TrustLevel = -1 // no action at all: the caller blocks every call
	TrustUntrusted  TrustLevel = 0  // every action needs consent
	TrustSupervised TrustLevel = 1  // high and critical actions need consent
	TrustAutonomous TrustLevel = 2  // critical actions need consent
	TrustTrusted    TrustLevel = 3  // no consent from the trust level (the policy may still ask)
)

// Valid reports whether l is one of the defined levels.
func (l TrustLevel) Valid() bool { return l >= TrustSuspended && l <= TrustTrusted }

// String returns "suspended", "untrusted", "supervised", "autonomous",
// "trusted", or "invalid(N)".
func (l TrustLevel) String() string {
	switch l {
	case TrustSuspended:
		return "suspended"
	case TrustUntrusted:
		return "untrusted"
	case TrustSupervised:
		return "supervised"
	case TrustAutonomous:
		return "autonomous"
	case TrustTrusted:
		return "trusted"
	}
	return fmt.Sprintf("invalid(%d)", int(l))
}

// RequiresConsent reports whether an action of risk r needs consent at
// level l (QWED §8.1): level 0 all, 1 high and critical, 2 critical only,
// 3 none. Suspended and invalid levels, and unknown risks (ranked
// critical), always need it; the caller blocks suspended agents outright.
func (l TrustLevel) RequiresConsent(r Risk) bool {
	switch l {
	case TrustTrusted:
		return false
	case TrustAutonomous:
		return riskRank(r) >= riskRank(RiskCritical)
	case TrustSupervised:
		return riskRank(r) >= riskRank(RiskHigh)
	}
	return true
}

// Violation is a reason to lower an agent's trust (QWED §8.3).
type Violation string

// The violations of QWED §8.3.
const (
	ViolationSecurity  Violation = "security_policy_violation" // -2 levels
	ViolationDenials   Violation = "repeated_denials"          // -1 level (more than 10% denied)
	ViolationBudget    Violation = "budget_abuse"              // -1 level
	ViolationComplaint Violation = "principal_complaint"       // suspend
)

// TrustWindow is the number of decisions [TrustStore.Record] looks at by
// default (QWED §8.3 "more than 10%" of a window).
const TrustWindow = 20

// Degrade returns the level after violation v (QWED §8.3). Penalties stop
// at TrustUntrusted; only a complaint suspends, and a suspended agent stays
// suspended. An unknown violation suspends (fail closed).
func (l TrustLevel) Degrade(v Violation) TrustLevel {
	if l == TrustSuspended || !l.Valid() {
		return TrustSuspended
	}
	var drop TrustLevel
	switch v {
	case ViolationSecurity:
		drop = 2
	case ViolationDenials, ViolationBudget:
		drop = 1
	default:
		return TrustSuspended
	}
	return max(l-drop, TrustUntrusted)
}

// TrustStore keeps agents' trust levels and degrades them automatically
// (QWED §8.3). Implementations are safe for concurrent use and fail closed:
// on error the caller treats the agent as TrustUntrusted.
type TrustStore interface {
	// Level returns agent's level, the store's default for an unknown agent.
	Level(ctx context.Context, agent string) (TrustLevel, error)
	// Set sets agent's level (QWED §8.2 elevation is the caller's decision).
	Set(ctx context.Context, agent string, l TrustLevel) error
	// Degrade applies violation v to agent and returns the new level.
	Degrade(ctx context.Context, agent string, v Violation) (TrustLevel, error)
	// Record counts one consent decision of agent and applies
	// ViolationDenials once more than 10% of a window of decisions were
	// denials. It returns the level after.
	Record(ctx context.Context, agent string, denied bool) (TrustLevel, error)
}

// MemoryTrustOptions configure a [MemoryTrustStore]. nil means defaults.
type MemoryTrustOptions struct {
	// Default is the level of agents never Set nor degraded (default
	// TrustUntrusted, the zero value).
	Default TrustLevel
	// MaxAgents caps the agents held (default 100,000); a change for a new
	// agent beyond it fails with [ErrCapacity].
	MaxAgents int
	// Window is how many decisions Record looks at (default 20): once an
	// agent has Window decisions, more than 10% denials degrade it by one
	// level and the count starts over.
	Window int
}

// MemoryTrustStore is the in-process [TrustStore]. A MemoryTrustStore is
// safe for concurrent use and starts no goroutines.
type MemoryTrustStore struct {
	def    TrustLevel
	max    int
	window int

	mu     sync.Mutex
	agents map[string]*trustState
}

type trustState struct {
	level          TrustLevel
	total, denials int
}

var _ TrustStore = (*MemoryTrustStore)(nil)

// MaxAgentLen bounds agent ids in trust stores.
const MaxAgentLen = 1024

// NewMemoryTrustStore returns an empty store. opts may be nil.
func NewMemoryTrustStore(opts *MemoryTrustOptions) (*MemoryTrustStore, error) {
	s := &MemoryTrustStore{max: 100_000, window: TrustWindow, agents: map[string]*trustState{}}
	if opts != nil {
		if !opts.Default.Valid() || opts.MaxAgents < 0 || opts.Window < 0 {
			return nil, fmt.Errorf("%w: MemoryTrustOptions Default %v MaxAgents %d Window %d", ErrInvalidOptions, opts.Default, opts.MaxAgents, opts.Window)
		}
		s.def = opts.Default
		if opts.MaxAgents > 0 {
			s.max = opts.MaxAgents
		}
		if opts.Window > 0 {
			s.window = opts.Window
		}
	}
	return s, nil
}

// CheckAgent refuses agent ids a trust store will not key on: empty, or
// longer than MaxAgentLen. Store implementations call it first.
func CheckAgent(agent string) error {
	if agent == "" || len(agent) > MaxAgentLen {
		return fmt.Errorf("%w: agent id of %d bytes, want 1 to %d", ErrInvalidRequest, len(agent), MaxAgentLen)
	}
	return nil
}

// Level implements [TrustStore].
func (s *MemoryTrustStore) Level(_ context.Context, agent string) (TrustLevel, error) {
	if err := CheckAgent(agent); err != nil {
		return TrustUntrusted, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.agents[agent]; ok {
		return st.level, nil
	}
	return s.def, nil
}

// state returns agent's entry, creating it; s.mu is held.
func (s *MemoryTrustStore) state(agent string) (*trustState, error) {
	if err := CheckAgent(agent); err != nil {
		return nil, err
	}
	if st, ok := s.agents[agent]; ok {
		return st, nil
	}
	if len(s.agents) >= s.max {
		return nil, fmt.Errorf("%w: %d agents held (MemoryTrustOptions.MaxAgents)", ErrCapacity, len(s.agents))
	}
	st := &trustState{level: s.def}
	s.agents[agent] = st
	return st, nil
}

// Set implements [TrustStore].
func (s *MemoryTrustStore) Set(_ context.Context, agent string, l TrustLevel) error {
	if !l.Valid() {
		return fmt.Errorf("%w: trust level %v", ErrInvalidRequest, l)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.state(agent)
	if err != nil {
		return err
	}
	st.level, st.total, st.denials = l, 0, 0
	return nil
}

// Degrade implements [TrustStore].
func (s *MemoryTrustStore) Degrade(_ context.Context, agent string, v Violation) (TrustLevel, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.state(agent)
	if err != nil {
		return TrustUntrusted, err
	}
	st.level = st.level.Degrade(v)
	return st.level, nil
}

// Record implements [TrustStore].
func (s *MemoryTrustStore) Record(_ context.Context, agent string, denied bool) (TrustLevel, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.state(agent)
	if err != nil {
		return TrustUntrusted, err
	}
	st.total++
	if denied {
		st.denials++
	}
	if st.total >= s.window {
		if st.denials*10 > st.total { // more than 10%
			st.level = st.level.Degrade(ViolationDenials)
		}
		st.total, st.denials = 0, 0
	}
	return st.level, nil
}
