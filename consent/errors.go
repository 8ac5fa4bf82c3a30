package consent

import "errors"

// ProofFailure names why a consent proof was refused. Callers branch on it
// through the sentinels below with errors.Is.
type ProofFailure string

// The proof failures of [Verifier.Check] and [Verifier.Verify] (ACP §6.3).
const (
	FailMalformed       ProofFailure = "malformed"        // missing or badly encoded fields
	FailUntrustedKey    ProofFailure = "untrusted_key"    // proof.public_key is not a trusted key
	FailBadSignature    ProofFailure = "bad_signature"    // signature or signed_payload_hash does not match
	FailRequestMismatch ProofFailure = "request_mismatch" // the response answers another request
	FailNonceMismatch   ProofFailure = "nonce_mismatch"   // nonce differs from the request's
	FailReplayed        ProofFailure = "replayed"         // nonce already used (single use)
	FailExpired         ProofFailure = "expired"          // valid_until passed, or answered after expires_at
	FailActionMismatch  ProofFailure = "action_mismatch"  // the executed action is not the one approved
	FailNotApproved     ProofFailure = "not_approved"     // an authentic proof of a denial
)

// ProofError is a refused consent proof. Detail says what was wrong; it never
// holds parameter values, keys or signatures.
//
// errors.Is(err, ErrReplayed) is true for every *ProofError whose Kind is
// FailReplayed: Is compares kinds only.
type ProofError struct {
	Kind   ProofFailure
	Detail string
}

func (e *ProofError) Error() string {
	if e.Detail == "" {
		return "consent: proof refused (" + string(e.Kind) + ")"
	}
	return "consent: proof refused (" + string(e.Kind) + "): " + e.Detail
}

// Is reports whether target is a *ProofError with the same Kind.
func (e *ProofError) Is(target error) bool {
	t, ok := target.(*ProofError)
	return ok && t.Kind == e.Kind
}

func proofErr(k ProofFailure, detail string) error { return &ProofError{Kind: k, Detail: detail} }

// Sentinels for errors.Is, one per [ProofFailure].
var (
	ErrMalformedProof  = &ProofError{Kind: FailMalformed}
	ErrUntrustedKey    = &ProofError{Kind: FailUntrustedKey}
	ErrBadSignature    = &ProofError{Kind: FailBadSignature}
	ErrRequestMismatch = &ProofError{Kind: FailRequestMismatch}
	ErrNonceMismatch   = &ProofError{Kind: FailNonceMismatch}
	ErrReplayed        = &ProofError{Kind: FailReplayed}
	ErrExpired         = &ProofError{Kind: FailExpired}
	ErrActionMismatch  = &ProofError{Kind: FailActionMismatch}
	ErrNotApproved     = &ProofError{Kind: FailNotApproved}
)

// Failures outside proof checking. Each one means "deny": the package never
// turns a failure into an approval.
var (
	// ErrInvalidOptions is wrapped by constructors given bad options.
	ErrInvalidOptions = errors.New("consent: invalid options")
	// ErrInvalidRequest is wrapped when a request or action cannot be
	// asked about (empty tool, parameters that are not plain JSON, ...).
	ErrInvalidRequest = errors.New("consent: invalid request")
	// ErrChannel wraps every channel failure: unreachable endpoint, closed
	// terminal, unauthenticated or unparseable reply. The call is denied.
	ErrChannel = errors.New("consent: channel failure")
	// ErrUnavailable wraps nonce or trust store failures (Redis down,
	// timeout). The call is denied (fail closed).
	ErrUnavailable = errors.New("consent: store unavailable")
	// ErrCapacity is returned when an in-memory store is full of live
	// entries and a new one is needed. The call is denied.
	ErrCapacity = errors.New("consent: store full")
	// ErrInvalidNonce is returned for an empty nonce or one longer than
	// [MaxNonceLen].
	ErrInvalidNonce = errors.New("consent: invalid nonce")
	// ErrAudit wraps a failure of the event callback on a step that must be
	// recorded before it takes effect (consent_requested, consent_approved,
	// credential_injected). The call is denied.
	ErrAudit = errors.New("consent: event not recorded")
	// ErrNoConsent is returned by [Grant.Consume] (and so vault.Vault.Inject)
	// without a valid, unused [Grant] for the exact arguments being injected.
	ErrNoConsent = errors.New("consent: no approved consent for this call")
)
