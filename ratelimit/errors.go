package ratelimit

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable reason code for a denial. The QWED-AGENT-* values are those
// of QWED-Agent v1.1 §10 (error codes table); callers can map them to their own
// wire format.
type Code string

// Reason codes. Every denial the package makes carries one of them.
const (
	// CodeContextMissing: no conversation_id or no step_number (QWED §9.1).
	CodeContextMissing Code = "QWED-AGENT-CTX-001"
	// CodeStepInvalid: step_number is not an integer >= 1 (QWED §9.1).
	CodeStepInvalid Code = "QWED-AGENT-CTX-002"
	// CodeStepLimit: step_number beyond the conversation's step limit (QWED §9.1).
	CodeStepLimit Code = "QWED-AGENT-LOOP-001"
	// CodeReplay: the step was already committed, or is in flight (QWED §9.2, §9.4).
	CodeReplay Code = "QWED-AGENT-LOOP-002"
	// CodeRepetitive: the same action more than MaxRepeats times in a row (QWED §9.3).
	CodeRepetitive Code = "QWED-AGENT-LOOP-003"
	// CodeBudgetCost: a cost limit (per request or per day) (QWED §6).
	CodeBudgetCost Code = "QWED-AGENT-BUDGET-001"
	// CodeBudgetRequests: a request-count limit (per hour, per day, high-risk
	// calls per day) (QWED §6).
	CodeBudgetRequests Code = "QWED-AGENT-BUDGET-002"
	// CodeBudgetTokens: a token limit (per request or per day) (QWED §6).
	CodeBudgetTokens Code = "QWED-AGENT-BUDGET-003"
	// CodeActionInvalid: the action's arguments cannot be fingerprinted because
	// they are not plain JSON (NaN, Inf, non-string map keys, ...). QWED §9.3
	// requires the rejection but names no code; this one is gatehouse's own.
	CodeActionInvalid Code = "GATEHOUSE-RATELIMIT-ACTION-001"
	// CodeStateLost: the conversation is unknown past step 1 while the
	// store may have lost its data (a Redis restarted without persistence
	// or flushed), so replays cannot be ruled out. gatehouse's own code.
	CodeStateLost Code = "GATEHOUSE-RATELIMIT-STATE-001"
)

// Error is a denial with a stable [Code] and a human-readable reason. Budget
// denials are [*BudgetError], which also matches with errors.Is.
//
// errors.Is(err, ErrReplay) is true for any *Error whose Code is CodeReplay:
// Is compares codes only, so a sentinel matches every copy with its code.
type Error struct {
	Code   Code
	Reason string // what was wrong and what to do, never secrets or argument values
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return "ratelimit: denied (" + string(e.Code) + ")"
	}
	return "ratelimit: " + e.Reason + " (" + string(e.Code) + ")"
}

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is, one per [Code].
var (
	ErrContextMissing = &Error{Code: CodeContextMissing}
	ErrStepInvalid    = &Error{Code: CodeStepInvalid}
	ErrStepLimit      = &Error{Code: CodeStepLimit}
	ErrReplay         = &Error{Code: CodeReplay}
	ErrRepetitive     = &Error{Code: CodeRepetitive}
	ErrBudgetCost     = &Error{Code: CodeBudgetCost}
	ErrBudgetRequests = &Error{Code: CodeBudgetRequests}
	ErrBudgetTokens   = &Error{Code: CodeBudgetTokens}
	ErrActionInvalid  = &Error{Code: CodeActionInvalid}
	ErrStateLost      = &Error{Code: CodeStateLost}
)

// Failures that are not policy denials. Each one still means "deny": the
// package never turns a failure into an allow.
var (
	// ErrUnavailable wraps every store failure: Redis unreachable, timed out,
	// or answering something unexpected (QWED §9.6: fail closed).
	ErrUnavailable = errors.New("ratelimit: store unavailable, request denied")
	// ErrCapacity matches every [*CapacityError]: a cap on state or on
	// calls in flight refused the request. It is load, not an outage: map
	// it to "rate limit exceeded" (-32002) with the error's reason, never
	// to "unavailable".
	ErrCapacity = errors.New("ratelimit: capacity reached, request denied")
	// ErrInvalidKey is returned for an empty key or one longer than [MaxKeyLen].
	ErrInvalidKey = errors.New("ratelimit: invalid key")
	// ErrInvalidOptions is wrapped by constructors given bad options.
	ErrInvalidOptions = errors.New("ratelimit: invalid options")
	// ErrReservationLost is returned by Commit when the reservation expired or
	// was released: the step was not consumed and the action must be denied.
	ErrReservationLost = errors.New("ratelimit: step reservation lost")
)

// MaxKeyLen bounds every key a store accepts (rate keys, budget agents,
// conversation scopes), so attacker-chosen keys cannot grow memory through
// their length.
const MaxKeyLen = 1024

// CheckKey returns an error wrapping [ErrInvalidKey] when key is empty or
// longer than [MaxKeyLen]; what names the key in the message. Store
// implementations call it so that all reject the same keys.
func CheckKey(what, key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty %s", ErrInvalidKey, what)
	}
	if len(key) > MaxKeyLen {
		return fmt.Errorf("%w: %s of %d bytes is longer than the %d allowed", ErrInvalidKey, what, len(key), MaxKeyLen)
	}
	return nil
}

// BudgetError is a budget denial: which limit, its value, the value it
// would reach, and when it resets (QWED §6.3). It matches the sentinel of its
// Code with errors.Is (ErrBudgetCost, ErrBudgetRequests, ErrBudgetTokens).
type BudgetError struct {
	Code    Code
	Limit   LimitName // which limit, e.g. LimitCostPerDay
	Max     float64   // the limit (USD for costs)
	Current float64   // the value before this request
	Request float64   // what this request would add
	ResetAt time.Time // when the window resets; zero for per-request limits
}

func (e *BudgetError) Error() string {
	msg := fmt.Sprintf("ratelimit: budget %s exceeded: %s used, this request needs %s more, limit %s",
		e.Limit, e.Limit.format(e.Current), e.Limit.format(e.Request), e.Limit.format(e.Max))
	if !e.ResetAt.IsZero() {
		msg += ", resets at " + e.ResetAt.UTC().Format(time.RFC3339)
	}
	return msg + " (" + string(e.Code) + ")"
}

// Is reports whether target is an *Error with the same Code.
func (e *BudgetError) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// CapacityError.Cap of the in-flight caps, for callers that tell them apart.
const (
	CapInFlightTotal    = "InFlightOptions.Total"
	CapInFlightPerAgent = "InFlightOptions.PerAgent"
	CapInFlightPerTool  = "InFlightOptions.PerTool"
)

// CapacityError is a refusal by a cap: which cap, its value and how to
// raise it. errors.Is(err, ErrCapacity) matches it; it never matches
// [ErrUnavailable]. Reasons never name the identity (it may be
// attacker-chosen text).
type CapacityError struct {
	What  string // what is capped, e.g. "live conversations of this agent"
	Cap   string // the setting that caps it, e.g. "MemoryOptions.MaxConversationsPerOwner"
	Limit int    // the cap's value
	Hint  string // what to do: wait, end idle state, or raise Cap
}

func (e *CapacityError) Error() string {
	msg := fmt.Sprintf("ratelimit: %s reached the cap of %d (%s)", e.What, e.Limit, e.Cap)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Is reports whether target is [ErrCapacity].
func (e *CapacityError) Is(target error) bool { return target == ErrCapacity }
