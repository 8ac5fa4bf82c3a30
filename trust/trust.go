package trust

import (
	"context"
	"fmt"
	"sync"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Level is an agent's trust level (QWED-Agent v1.1 §8.1). It decides,
// on top of the policy, which risk levels need a human's consent. The zero
// value is Untrusted: everything needs consent.
type Level int

// The levels of QWED §8.1, plus Suspended (QWED §8.3 "principal
// complaint: suspend").
const (
	Suspended  Level = -1 // no action at all: the caller blocks every call
	Untrusted  Level = 0  // every action needs consent
	Supervised Level = 1  // high and critical actions need consent
	Autonomous Level = 2  // critical actions need consent
	Trusted    Level = 3  // no consent from the trust level (the policy may still ask)
)

// Valid reports whether l is one of the defined levels.
func (l Level) Valid() bool { return l >= Suspended && l <= Trusted }

// String returns "suspended", "untrusted", "supervised", "autonomous",
// "trusted", or "invalid(N)".
func (l Level) String() string {
	switch l {
	case Suspended:
		return "suspended"
	case Untrusted:
		return "untrusted"
	case Supervised:
		return "supervised"
	case Autonomous:
		return "autonomous"
	case Trusted:
		return "trusted"
	}
	return fmt.Sprintf("invalid(%d)", int(l))
}

// RequiresConsent reports whether an action of risk r needs consent at
// level l (QWED §8.1): level 0 all, 1 high and critical, 2 critical only,
// 3 none. Suspended and invalid levels, and unknown risks (ranked
// critical), always need it; the caller blocks suspended agents outright.
func (l Level) RequiresConsent(r policy.Risk) bool {
	switch l {
	case Trusted:
		return false
	case Autonomous:
		return riskRank(r) >= riskRank(policy.RiskCritical)
	case Supervised:
		return riskRank(r) >= riskRank(policy.RiskHigh)
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

// Window is the number of decisions [Store.Record] looks at by
// default (QWED §8.3 "more than 10%" of a window).
const Window = 20

// Degrade returns the level after violation v (QWED §8.3). Penalties stop
// at Untrusted; only a complaint suspends, and a suspended agent stays
// suspended. An unknown violation suspends (fail closed).
func (l Level) Degrade(v Violation) Level {
	if l == Suspended || !l.Valid() {
		return Suspended
	}
	var drop Level
	switch v {
	case ViolationSecurity:
		drop = 2
	case ViolationDenials, ViolationBudget:
		drop = 1
	default:
		return Suspended
	}
	return max(l-drop, Untrusted)
}

// Store keeps agents' trust levels and degrades them automatically
// (QWED §8.3). Implementations are safe for concurrent use and fail closed:
// on error the caller treats the agent as Untrusted.
type Store interface {
	// Level returns agent's level, the store's default for an unknown agent.
	Level(ctx context.Context, agent string) (Level, error)
	// Set sets agent's level (QWED §8.2 elevation is the caller's decision).
	Set(ctx context.Context, agent string, l Level) error
	// Degrade applies violation v to agent and returns the new level.
	Degrade(ctx context.Context, agent string, v Violation) (Level, error)
	// Record counts one consent decision of agent and applies
	// ViolationDenials once more than 10% of a window of decisions were
	// denials. It returns the level after.
	Record(ctx context.Context, agent string, denied bool) (Level, error)
}

// MemoryOptions configure a [MemoryStore]. nil means defaults.
type MemoryOptions struct {
	// Default is the level of agents never Set nor degraded (default
	// Untrusted, the zero value).
	Default Level
	// MaxAgents caps the agents held (default 100,000). At the cap, an
	// agent at the Default level is evicted to make room (the one with the
	// fewest denials in its window among a sample); agents at another
	// level (set or degraded) are never evicted, and when every agent held
	// is one, a change for a new agent fails with [ErrCapacity].
	MaxAgents int
	// Window is how many decisions Record looks at (default 20): once an
	// agent has Window decisions, more than 10% denials degrade it by one
	// level and the count starts over.
	Window int
}

// MemoryStore is the in-process [Store]. A MemoryStore is
// safe for concurrent use and starts no goroutines.
type MemoryStore struct {
	def    Level
	max    int
	window int

	mu     sync.Mutex
	agents map[string]*trustState
}

type trustState struct {
	level          Level
	total, denials int
}

var _ Store = (*MemoryStore)(nil)

// MaxAgentLen bounds agent ids in trust stores.
const MaxAgentLen = 1024

// NewMemoryStore returns an empty store. opts may be nil.
func NewMemoryStore(opts *MemoryOptions) (*MemoryStore, error) {
	s := &MemoryStore{max: 100_000, window: Window, agents: map[string]*trustState{}}
	if opts != nil {
		if !opts.Default.Valid() || opts.MaxAgents < 0 || opts.Window < 0 {
			return nil, fmt.Errorf("%w: MemoryOptions Default %v MaxAgents %d Window %d", ErrInvalidOptions, opts.Default, opts.MaxAgents, opts.Window)
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

// Level implements [Store].
func (s *MemoryStore) Level(_ context.Context, agent string) (Level, error) {
	if err := CheckAgent(agent); err != nil {
		return Untrusted, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.agents[agent]; ok {
		return st.level, nil
	}
	return s.def, nil
}

// state returns agent's entry, creating it; s.mu is held.
func (s *MemoryStore) state(agent string) (*trustState, error) {
	if err := CheckAgent(agent); err != nil {
		return nil, err
	}
	if st, ok := s.agents[agent]; ok {
		return st, nil
	}
	if len(s.agents) >= s.max && !s.evict() {
		return nil, fmt.Errorf("%w: %d agents held (MemoryOptions.MaxAgents), every one at a level other than the default (set or degraded, never evicted); raise MaxAgents", ErrCapacity, len(s.agents))
	}
	st := &trustState{level: s.def}
	s.agents[agent] = st
	return st, nil
}

// evictSample is how many entries one eviction compares; evictScan bounds
// how many it looks through to find one at the default level.
const (
	evictSample = 64
	evictScan   = 1024
)

// evict makes room for one agent (s.mu held) and reports whether it did.
// Agent names are self-declared, so a flood of distinct names must not
// fill the store for good: that would leave every new agent impossible
// to Set, suspend or degrade. Only an agent at the default level is
// evicted, which is then what it was before its first decision: the one
// with the fewest denials among up to evictSample (any with none is
// taken at once; that loses only a count of allowed decisions). An agent
// set or degraded to another level is never evicted: that would undo an
// operator's decision or a penalty.
func (s *MemoryStore) evict() bool {
	var victim string
	best, n := -1, 0
	for a, st := range s.agents {
		// Past the sample, go on only until a candidate turns up, and
		// never through more than evictScan entries (map iteration starts
		// at a random place, so the next try looks elsewhere).
		if n++; (n > evictSample && best >= 0) || n > evictScan {
			break
		}
		if st.level != s.def {
			continue
		}
		if best < 0 || st.denials < best {
			victim, best = a, st.denials
			if best == 0 {
				break
			}
		}
	}
	if best < 0 {
		return false
	}
	delete(s.agents, victim)
	return true
}

// Set implements [Store].
func (s *MemoryStore) Set(_ context.Context, agent string, l Level) error {
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

// Degrade implements [Store].
func (s *MemoryStore) Degrade(_ context.Context, agent string, v Violation) (Level, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.state(agent)
	if err != nil {
		return Untrusted, err
	}
	st.level = st.level.Degrade(v)
	return st.level, nil
}

// Record implements [Store].
func (s *MemoryStore) Record(_ context.Context, agent string, denied bool) (Level, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.state(agent)
	if err != nil {
		return Untrusted, err
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

// riskRank orders risk levels; an unknown level ranks as critical (fail closed).
func riskRank(r policy.Risk) int {
	if n := r.Rank(); n > 0 {
		return n
	}
	return policy.RiskCritical.Rank()
}
