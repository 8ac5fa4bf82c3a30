package ratelimit

import (
	"context"
	"time"
)

// Store is the state behind a [Limiter], a [Budget] and a [Guard]. Two
// implementations ship: [MemoryStore] (the default, one process) and
// redisstore.Store (shared by replicas). ratelimit/storetest checks any
// implementation against the same suite.
//
// Every method is atomic with respect to the others on the same key or scope:
// no caller can observe or act on a state between another caller's read and
// write. Implementations must be safe for concurrent use and must return an
// error wrapping [ErrUnavailable] when they cannot answer; callers deny then.
// Time always comes from the caller (now), never from the store's clock.
type Store interface {
	RateStore
	BudgetStore
	StepStore
}

// RateStore keeps one token bucket per key.
type RateStore interface {
	// Take takes one token from key's bucket at now. The bucket holds at most
	// r.N tokens, starts full and regains r.N tokens per r.Per.
	Take(ctx context.Context, key string, r Rate, now time.Time) (Result, error)
}

// Result is the outcome of one rate check. A denial is a value, not an error.
type Result struct {
	Allowed    bool
	Limit      Rate
	Remaining  int           // whole tokens left after this check
	RetryAfter time.Duration // when denied: time until one token is back; 0 when allowed
}

// BudgetStore keeps counters that reset at the end of their window.
type BudgetStore interface {
	// Spend applies counters, all in the scope (an agent, for a [Budget]), as
	// one atomic step according to mode. It reports the counters' values from
	// before the call and which counter, if any, would pass its Max.
	Spend(ctx context.Context, scope string, counters []Counter, mode SpendMode, now time.Time) (SpendResult, error)
}

// Counter is one budget counter in a [BudgetStore.Spend] call.
type Counter struct {
	Name string        // unique in the scope; includes the window, e.g. "requests/hour/493827"
	Add  int64         // amount to add, >= 0
	Max  int64         // the value must stay <= Max; 0 means no limit
	TTL  time.Duration // lifetime from now: until the window resets (> 0)
	// Age is how long the counter's window has been open at now (>= 0).
	// A store that may have lost its data after the window opened (a
	// Redis restarted without persistence) counts an absent counter as
	// spent to Max instead of as zero; 0 means just opened.
	Age time.Duration
}

// SpendMode says what [BudgetStore.Spend] does.
type SpendMode uint8

const (
	// SpendCheck reads only: would every counter stay within its Max?
	SpendCheck SpendMode = iota + 1
	// SpendCommit adds every Add if every counter stays within its Max, and
	// adds nothing otherwise.
	SpendCommit
	// SpendForce adds every Add unconditionally (usage that already happened).
	SpendForce
	// SpendRefund takes every Add back from counters that exist, none below
	// zero (a charge for a call that was refused after it).
	SpendRefund
)

// SpendResult is what [BudgetStore.Spend] reports.
type SpendResult struct {
	Failed int     // index of the first counter over its Max, or -1
	Values []int64 // each counter's value before the call, in order
}

// Fingerprint identifies an action for repetitive-loop detection: SHA-256 of
// the JCS (RFC 8785) form of {"arguments": args, "tool": tool}. See [FingerprintOf].
type Fingerprint [32]byte

// StepStore keeps the per-conversation state of a [Guard]: the highest
// committed step, the last committed fingerprint and its repeat count, and one
// reservation per in-flight step (QWED §9.2-9.4).
type StepStore interface {
	// Reserve reserves step in the conversation scope unless it is committed
	// or at most the highest committed step (StepReplay), already reserved and
	// unexpired (StepInFlight), or fp was already committed p.MaxRepeats times
	// in a row (StepRepetitive). On StepOK the result carries a token for
	// Commit and Release.
	Reserve(ctx context.Context, scope string, step int64, fp Fingerprint, p StepParams, now time.Time) (StepResult, error)
	// Commit consumes a reserved step: it becomes the highest committed step
	// unless a higher one already is, and fp extends or restarts the repeat
	// run. It answers StepLost when token no longer holds the reservation and
	// StepRepetitive when concurrent commits already made fp's run too long
	// (the reservation is then released).
	Commit(ctx context.Context, scope string, step int64, token string, fp Fingerprint, p StepParams, now time.Time) (StepStatus, error)
	// Release drops the reservation held by token, so the step can be tried
	// again. Releasing a reservation that is gone is not an error.
	Release(ctx context.Context, scope string, step int64, token string) error
}

// StepParams are the limits a [Guard] passes to its [StepStore].
type StepParams struct {
	MaxRepeats      int           // identical consecutive committed actions allowed
	ReservationTTL  time.Duration // an uncommitted reservation expires after this
	ConversationTTL time.Duration // an idle conversation's state is dropped after this
}

// StepStatus is the outcome of a [StepStore] call.
type StepStatus uint8

const (
	StepOK         StepStatus = iota + 1 // reserved or committed
	StepReplay                           // step <= highest committed step
	StepInFlight                         // step reserved by another request
	StepRepetitive                       // fingerprint repeated too often
	StepLost                             // commit without a live reservation
	// StepStateLost: the conversation is unknown, the step is past 1, and
	// the store's data may have been lost less than one ConversationTTL
	// ago (its loss marker is younger than that): the step could be a
	// replay of a step committed before the loss.
	StepStateLost
)

var stepStatusNames = [...]string{"", "ok", "replay", "in-flight", "repetitive", "lost", "state-lost"}

func (s StepStatus) String() string {
	if int(s) < len(stepStatusNames) && s != 0 {
		return stepStatusNames[s]
	}
	return "StepStatus(" + itoa(int64(s)) + ")"
}

// StepResult is what [StepStore.Reserve] reports.
type StepResult struct {
	Status        StepStatus
	Token         string // holds the reservation when Status is StepOK
	LastCommitted int64  // highest committed step, 0 if none
	Repeats       int    // length of the current run of identical committed actions
}
