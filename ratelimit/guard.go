package ratelimit

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// GuardOptions configure a [Guard]. nil means defaults; zero fields too.
type GuardOptions struct {
	// Store holds conversation state. nil means a new [MemoryStore] with
	// default caps.
	Store StepStore
	// MaxSteps is the highest step number allowed (default 50, QWED §9.1).
	MaxSteps int64
	// MaxRepeats is how many identical actions may be committed in a row
	// (default 2: the third is denied, QWED §9.3).
	MaxRepeats int
	// ReservationTTL is how long a step stays reserved without Commit or
	// Release, e.g. when the process dies mid-decision (default 1 minute).
	ReservationTTL time.Duration
	// ConversationTTL is how long an idle conversation's state is kept
	// (default 24 hours). After that its steps can be replayed: keep it longer
	// than any conversation you accept.
	ConversationTTL time.Duration
	// Now is the guard's clock. nil means time.Now.
	Now func() time.Time
}

// Guard enforces the conversation controls of QWED §9.1-9.4: an action
// context is required, steps are limited, committed steps cannot be replayed,
// a step can be in flight once, and an action repeated too often in a row is
// a loop.
//
// Use it as Begin, decide, then Commit when the decision is APPROVED or
// PENDING, or Release on any denial (a budget denial included, QWED §9.5) so
// the step can be retried. Reservations are per step: different steps of one
// conversation may be in flight together, the same step never twice.
//
// A Guard is safe for concurrent use.
type Guard struct {
	store  StepStore
	params StepParams
	max    int64
	now    func() time.Time
}

// NewGuard returns a Guard. opts may be nil.
func NewGuard(opts *GuardOptions) (*Guard, error) {
	var o GuardOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxSteps < 0 || o.MaxRepeats < 0 || o.ReservationTTL < 0 || o.ConversationTTL < 0 {
		return nil, fmt.Errorf("%w: GuardOptions has a negative field (%d steps, %d repeats, %v, %v); zero means default", ErrInvalidOptions, o.MaxSteps, o.MaxRepeats, o.ReservationTTL, o.ConversationTTL)
	}
	g := &Guard{
		store: o.Store, max: o.MaxSteps, now: o.Now,
		params: StepParams{MaxRepeats: o.MaxRepeats, ReservationTTL: o.ReservationTTL, ConversationTTL: o.ConversationTTL},
	}
	if g.max == 0 {
		g.max = 50
	}
	if g.params.MaxRepeats == 0 {
		g.params.MaxRepeats = 2
	}
	if g.params.ReservationTTL == 0 {
		g.params.ReservationTTL = time.Minute
	}
	if g.params.ConversationTTL == 0 {
		g.params.ConversationTTL = 24 * time.Hour
	}
	if g.now == nil {
		g.now = time.Now
	}
	if g.store == nil {
		m, err := NewMemoryStore(nil)
		if err != nil {
			return nil, err
		}
		g.store = m
	}
	return g, nil
}

// Action is one request as the guard sees it.
type Action struct {
	Agent          string // who acts; state is per (Agent, ConversationID), QWED §9.2
	ConversationID string // QWED §9.1 conversation_id; see [ParseContext]
	Step           int64  // QWED §9.1 step_number, >= 1
	Tool           string
	Args           any // plain JSON, see [FingerprintOf]
}

// Begin checks a and reserves its step. On success the caller must end the
// reservation with [Reservation.Commit] or [Reservation.Release]; one that
// is not ended expires after ReservationTTL. A denial is an [*Error] with the
// QWED code (CTX-001/002, LOOP-001/002/003, or CodeActionInvalid); any other
// error also means deny.
func (g *Guard) Begin(ctx context.Context, a Action) (*Reservation, error) {
	if a.ConversationID == "" {
		return nil, &Error{Code: CodeContextMissing, Reason: "action context needs a conversation_id and a step_number"}
	}
	if len(a.ConversationID) > MaxConversationIDLen {
		return nil, &Error{Code: CodeContextMissing, Reason: fmt.Sprintf("conversation_id is %d bytes, at most %d allowed", len(a.ConversationID), MaxConversationIDLen)}
	}
	if a.Step < 1 {
		return nil, &Error{Code: CodeStepInvalid, Reason: fmt.Sprintf("step_number must be >= 1, got %d", a.Step)}
	}
	if a.Step > g.max {
		return nil, &Error{Code: CodeStepLimit, Reason: fmt.Sprintf("step %d is past the limit of %d steps per conversation; start a new conversation", a.Step, g.max)}
	}
	fp, err := FingerprintOf(a.Tool, a.Args)
	if err != nil {
		return nil, err
	}
	scope := Key(a.Agent, a.ConversationID)
	res, err := g.store.Reserve(ctx, scope, a.Step, fp, g.params, g.now())
	if err != nil {
		return nil, err
	}
	switch res.Status {
	case StepOK:
		if res.Token == "" {
			return nil, fmt.Errorf("%w: step store reserved step %d without a token", ErrUnavailable, a.Step)
		}
		return &Reservation{g: g, scope: scope, step: a.Step, token: res.Token, fp: fp}, nil
	case StepReplay:
		return nil, &Error{Code: CodeReplay, Reason: fmt.Sprintf("step %d replays or precedes committed step %d; send step %d or later", a.Step, res.LastCommitted, res.LastCommitted+1)}
	case StepInFlight:
		return nil, &Error{Code: CodeReplay, Reason: fmt.Sprintf("step %d is already being decided for another request; wait for it, then send the next step", a.Step)}
	case StepRepetitive:
		return nil, repetitive(res.Repeats, g.params.MaxRepeats)
	case StepStateLost:
		return nil, &Error{Code: CodeStateLost, Reason: fmt.Sprintf("the conversation store no longer holds this conversation's state (lost in a restart less than %v ago, or evicted under load), so step %d cannot be checked for replays; start a new conversation at step 1", g.params.ConversationTTL, a.Step)}
	}
	return nil, fmt.Errorf("%w: step store answered unknown status %v", ErrUnavailable, res.Status)
}

func repetitive(n, limit int) error {
	return &Error{Code: CodeRepetitive, Reason: fmt.Sprintf("the same tool call with the same arguments was committed %d times in a row (at most %d allowed); change the action", n, limit)}
}

// Reservation holds one reserved step between [Guard.Begin] and its Commit
// or Release. It is safe for concurrent use; only the first Commit or Release
// acts.
type Reservation struct {
	g     *Guard
	scope string
	step  int64
	token string
	fp    Fingerprint
	ended atomic.Bool
}

// Step returns the reserved step number.
func (r *Reservation) Step() int64 { return r.step }

// Fingerprint returns the action's fingerprint.
func (r *Reservation) Fingerprint() Fingerprint { return r.fp }

// Commit consumes the step: call it when the decision is APPROVED or PENDING
// (QWED §9.4). A non-nil error means the step was not consumed and the action
// must be denied: [ErrReservationLost] (expired or already ended), an
// [*Error] with CodeRepetitive when concurrent steps committed the same
// action first, or a store failure.
func (r *Reservation) Commit(ctx context.Context) error {
	if !r.ended.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: step %d was already committed or released", ErrReservationLost, r.step)
	}
	st, err := r.g.store.Commit(ctx, r.scope, r.step, r.token, r.fp, r.g.params, r.g.now())
	if err != nil {
		// The reservation may still be held: drop it so the step can be
		// retried. Not with ctx: a commit fails most often because ctx was
		// cancelled or ran out (the client gave up), and a store that
		// honours ctx would then not release either, leaving the step
		// reserved for ReservationTTL while Release after this is a no-op.
		// The store bounds the call with its own timeout. A store that
		// failed once may fail again; the TTL frees it then.
		_ = r.g.store.Release(context.WithoutCancel(ctx), r.scope, r.step, r.token)
		return err
	}
	switch st {
	case StepOK:
		return nil
	case StepLost:
		return fmt.Errorf("%w: step %d was no longer reserved (reservations last %v); deny the action and retry the step", ErrReservationLost, r.step, r.g.params.ReservationTTL)
	case StepRepetitive:
		return repetitive(r.g.params.MaxRepeats, r.g.params.MaxRepeats)
	}
	return fmt.Errorf("%w: step store answered unknown status %v to commit", ErrUnavailable, st)
}

// Release gives the step back so it can be retried: call it on every denial
// (QWED §9.4, §9.5). Releasing after Commit or twice does nothing, so
// `defer r.Release(ctx)` right after Begin is safe.
func (r *Reservation) Release(ctx context.Context) error {
	if !r.ended.CompareAndSwap(false, true) {
		return nil
	}
	return r.g.store.Release(ctx, r.scope, r.step, r.token)
}

// ReservationTTL returns how long a step stays reserved between Begin and
// Commit or Release: whatever decides a step (a human asked, say) must
// finish within it.
func (g *Guard) ReservationTTL() time.Duration { return g.params.ReservationTTL }
