package approval

import (
	"errors"
)

// Reason is the machine-readable discriminator of an approval rejection,
// carried in data.reason of the JSON-RPC -32001 error (SEP-2672 §4.10). The
// values are part of the wire protocol and never change or get localized.
type Reason string

// The sixteen reasons of SEP-2672 §4.10, grouped by the path that emits them.
const (
	// Per-call assertion path (tools/call, §4.8).
	ReasonMissingEvidence            Reason = "missing_evidence"
	ReasonUnsupportedMethod          Reason = "unsupported_method"
	ReasonChallengeUnknown           Reason = "challenge_unknown"
	ReasonChallengeConsumed          Reason = "challenge_consumed"
	ReasonChallengeExpired           Reason = "challenge_expired"
	ReasonChallengeWrongTool         Reason = "challenge_wrong_tool"
	ReasonUnknownCredential          Reason = "unknown_credential"
	ReasonAuthenticatorClassMismatch Reason = "authenticator_class_mismatch"
	ReasonSignatureFailed            Reason = "signature_verification_failed"
	ReasonCounterRegression          Reason = "signature_counter_regression"
	ReasonArgumentHashMismatch       Reason = "argument_hash_mismatch"

	// Challenge issuance (approval/challenge/create, §4.4.3).
	ReasonToolNotApprovalRequired Reason = "tool_not_approved_required"
	ReasonNoEligibleCredential    Reason = "no_eligible_credential"

	// Enrollment finish (approval/enroll/finish, §4.4.2).
	ReasonCredentialAlreadyEnrolled Reason = "credential_already_enrolled"
	ReasonNoPendingEnrollment       Reason = "no_pending_enrollment"
	ReasonVerificationFailed        Reason = "verification_failed"
)

// Reasons lists every [Reason] of SEP-2672 §4.10, in the order the spec
// enumerates them.
var Reasons = []Reason{
	ReasonMissingEvidence, ReasonUnsupportedMethod, ReasonChallengeUnknown,
	ReasonChallengeConsumed, ReasonChallengeExpired, ReasonChallengeWrongTool,
	ReasonUnknownCredential, ReasonAuthenticatorClassMismatch, ReasonSignatureFailed,
	ReasonCounterRegression, ReasonArgumentHashMismatch,
	ReasonToolNotApprovalRequired, ReasonNoEligibleCredential,
	ReasonCredentialAlreadyEnrolled, ReasonNoPendingEnrollment, ReasonVerificationFailed,
}

// Error is an approval rejection. Every failure of [Gate.Verify],
// [Gate.CreateChallenge] and [Gate.FinishEnrollment] that a client can act on
// is an *Error with one of the §4.10 reasons; the JSON-RPC layer sends it as
// code -32001 with data.reason = Reason.
//
// errors.Is(err, ErrChallengeConsumed) is true for any *Error whose Reason is
// ReasonChallengeConsumed: Is compares reasons only. Err, when set, is the
// underlying cause (a go-webauthn error, or a store failure wrapping
// [ErrUnavailable]); it is for server logs and is never sent to clients.
type Error struct {
	Reason Reason
	Detail string // what failed, in words; never secrets, keys, or argument values
	Err    error  // the cause, or nil
}

func (e *Error) Error() string {
	msg := "approval: "
	if e.Detail != "" {
		msg += e.Detail
	} else {
		msg += "rejected"
	}
	msg += " (" + string(e.Reason) + ")"
	if errors.Is(e.Err, ErrUnavailable) {
		msg += ": store unavailable"
	}
	return msg
}

// Is reports whether target is an *Error with the same Reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinels for errors.Is, one per [Reason].
var (
	ErrMissingEvidence            = &Error{Reason: ReasonMissingEvidence}
	ErrUnsupportedMethod          = &Error{Reason: ReasonUnsupportedMethod}
	ErrChallengeUnknown           = &Error{Reason: ReasonChallengeUnknown}
	ErrChallengeConsumed          = &Error{Reason: ReasonChallengeConsumed}
	ErrChallengeExpired           = &Error{Reason: ReasonChallengeExpired}
	ErrChallengeWrongTool         = &Error{Reason: ReasonChallengeWrongTool}
	ErrUnknownCredential          = &Error{Reason: ReasonUnknownCredential}
	ErrAuthenticatorClassMismatch = &Error{Reason: ReasonAuthenticatorClassMismatch}
	ErrSignatureFailed            = &Error{Reason: ReasonSignatureFailed}
	ErrCounterRegression          = &Error{Reason: ReasonCounterRegression}
	ErrArgumentHashMismatch       = &Error{Reason: ReasonArgumentHashMismatch}
	ErrToolNotApprovalRequired    = &Error{Reason: ReasonToolNotApprovalRequired}
	ErrNoEligibleCredential       = &Error{Reason: ReasonNoEligibleCredential}
	ErrCredentialAlreadyEnrolled  = &Error{Reason: ReasonCredentialAlreadyEnrolled}
	ErrNoPendingEnrollment        = &Error{Reason: ReasonNoPendingEnrollment}
	ErrVerificationFailed         = &Error{Reason: ReasonVerificationFailed}
)

// Failures that are not §4.10 reasons. Each still means "deny".
var (
	// ErrInvalidOptions: a constructor was given an unusable Config or Options.
	ErrInvalidOptions = errors.New("approval: invalid options")
	// ErrInvalidServerID: the serverId is empty, malformed, or a well-known
	// constant that another server could share (SEP-2672 §4.6).
	ErrInvalidServerID = errors.New("approval: invalid serverId")
	// ErrInvalidArguments: tool arguments that cannot be canonicalized (not a
	// JSON object, duplicate keys, a number JCS cannot represent exactly, too
	// large). JSON-RPC layers answer -32602 for approval/challenge/create.
	ErrInvalidArguments = errors.New("approval: invalid arguments")
	// ErrInvalidUser: an empty or over-long user handle (WebAuthn allows 1-64 bytes).
	ErrInvalidUser = errors.New("approval: invalid user")
)

// Store failures. Store implementations return these (wrapped or not); the
// [Gate] turns them into an [*Error] with the reason of the step that failed.
var (
	// ErrNotFound: no such challenge, or no such credential for this user.
	ErrNotFound = errors.New("approval: not found")
	// ErrConsumed: the challenge was consumed already.
	ErrConsumed = errors.New("approval: already consumed")
	// ErrExpired: the challenge expired before it could be consumed.
	ErrExpired = errors.New("approval: expired")
	// ErrDuplicate: a challenge ID or credential ID that is already stored.
	ErrDuplicate = errors.New("approval: duplicate")
	// ErrCounterNotAdvanced: UpdateCounter was given a count that does not
	// strictly exceed the stored non-zero count.
	ErrCounterNotAdvanced = errors.New("approval: signature counter did not advance")
	// ErrCapacity: a bounded store is full; existing entries keep working.
	// ErrHasCredentials is returned by AddFirst and FinishFirstEnrollment
	// when the user already has a credential enrolled.
	ErrHasCredentials = errors.New("approval: the user has a credential enrolled already")
	ErrCapacity       = errors.New("approval: store at capacity")
	// ErrUnavailable: the store could not answer (I/O error, Redis down or
	// slow). Always a denial, never an allow.
	ErrUnavailable = errors.New("approval: store unavailable")

	// ErrLocked: OpenFileCredentialStore found the credential file open
	// by another store (another process, or this one). The message names
	// the file.
	ErrLocked = errors.New("approval: credential file is open by another store")
)

func reject(r Reason, detail string, cause error) *Error {
	return &Error{Reason: r, Detail: detail, Err: cause}
}
