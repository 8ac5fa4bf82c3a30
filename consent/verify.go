package consent

import (
	"context"
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// VerifierOptions configure a [Verifier]. nil means defaults.
type VerifierOptions struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Verifier checks consent proofs against a set of trusted Ed25519 public
// keys and consumes their nonces in a [NonceStore] (ACP §6.3, §9 items 4
// and 5). A Verifier is safe for concurrent use when its store is.
type Verifier struct {
	keys   map[string]ed25519.PublicKey // by lower-case hex
	nonces NonceStore
	now    func() time.Time
}

// NewVerifier returns a Verifier trusting keys (at least one, each 32
// bytes) and remembering used nonces in nonces (required). opts may be nil.
func NewVerifier(keys []ed25519.PublicKey, nonces NonceStore, opts *VerifierOptions) (*Verifier, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: NewVerifier needs at least one trusted key", ErrInvalidOptions)
	}
	if nonces == nil {
		return nil, fmt.Errorf("%w: NewVerifier needs a NonceStore", ErrInvalidOptions)
	}
	v := &Verifier{keys: make(map[string]ed25519.PublicKey, len(keys)), nonces: nonces, now: time.Now}
	for i, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("%w: trusted key %d has %d bytes, want %d", ErrInvalidOptions, i, len(k), ed25519.PublicKeySize)
		}
		v.keys[hex.EncodeToString(k)] = append(ed25519.PublicKey(nil), k...)
	}
	if opts != nil && opts.Now != nil {
		v.now = opts.Now
	}
	return v, nil
}

// Verify checks resp as the answer to req for running tool with args, then
// consumes the nonce. A nil error means exactly this: a trusted key signed
// an approval of this request, in time, whose nonce was not used before,
// and args are the approved parameters (the request's, or the request's
// with the signed modifications applied). Every other outcome is a
// [*ProofError] (errors.Is with ErrBadSignature, ErrReplayed, ...) or a
// store failure wrapping [ErrUnavailable]; an authentic denial is
// ErrNotApproved. The nonce is consumed only when every other check passed.
func (v *Verifier) Verify(ctx context.Context, req *ConsentRequest, resp *ConsentResponse, tool string, args map[string]any) error {
	if err := v.Check(req, resp, tool, args, v.now()); err != nil {
		return err
	}
	return v.nonces.Use(ctx, req.Nonce, resp.Conditions.ValidUntil)
}

// Check is [Verifier.Verify] without the nonce store, at the instant now:
// the pure layer, for tests and for callers that track single use
// themselves. It does no I/O.
func (v *Verifier) Check(req *ConsentRequest, resp *ConsentResponse, tool string, args map[string]any, now time.Time) error {
	if req == nil || resp == nil {
		return proofErr(FailMalformed, "nil request or response")
	}
	if resp.Type != TypeResponse || resp.Version != Version {
		return proofErr(FailMalformed, fmt.Sprintf("type %q version %q, want %q %q", clip(resp.Type), clip(resp.Version), TypeResponse, Version))
	}
	p := resp.Proof
	if p.Algorithm != AlgorithmEd25519 {
		return proofErr(FailMalformed, fmt.Sprintf("algorithm %q, want %q", clip(p.Algorithm), AlgorithmEd25519))
	}
	// ACP §6.3 step 3: the key must be trusted before its signature means
	// anything.
	pub, ok := v.keys[p.PublicKey]
	if !ok {
		return proofErr(FailUntrustedKey, "proof.public_key is not a trusted key")
	}
	sig, err := hex.DecodeString(p.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return proofErr(FailBadSignature, "signature is not 64 bytes of hex")
	}
	// The proof must answer this very request (tool, server, parameters,
	// agent, expiry, ...): compare before the signature so the reason is
	// precise; the signature then covers resp.RequestHash.
	rh, err := RequestHash(req)
	if err != nil {
		return proofErr(FailRequestMismatch, "the request cannot be hashed")
	}
	if subtle.ConstantTimeCompare([]byte(rh), []byte(resp.RequestHash)) != 1 {
		return proofErr(FailRequestMismatch, "the request differs from the one the proof was signed for (tool, server, parameters, agent, expiry or policy)")
	}
	// ACP §6.3 steps 1-3: reconstruct, hash, verify.
	msg, err := SigningPayload(req, resp)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(sha256Hex(msg)), []byte(p.SignedPayloadHash)) != 1 {
		return proofErr(FailBadSignature, "signed_payload_hash does not match the payload")
	}
	if !ed25519.Verify(pub, msg, sig) {
		return proofErr(FailBadSignature, "Ed25519 signature does not verify")
	}
	// The signature is authentic from here on; now bind it to this request.
	if resp.RequestID != req.ID {
		return proofErr(FailRequestMismatch, "request_id is not the request's id")
	}
	// ACP §6.3 step 4.
	if req.Nonce == "" || subtle.ConstantTimeCompare([]byte(resp.Nonce), []byte(req.Nonce)) != 1 {
		return proofErr(FailNonceMismatch, "nonce is not the request's nonce")
	}
	if !resp.Decision.approves() {
		return proofErr(FailNotApproved, "decision is "+string(resp.Decision))
	}
	// ACP §6.3 step 5, and ACP §5.1: a decision after expires_at is void.
	if resp.Timestamp.After(req.ExpiresAt) {
		return proofErr(FailExpired, "decided after the request expired at "+formatTime(req.ExpiresAt))
	}
	if !now.Before(resp.Conditions.ValidUntil) {
		return proofErr(FailExpired, "approval valid until "+formatTime(resp.Conditions.ValidUntil))
	}
	// The action run must be the action approved.
	if normalize.Name(tool) != normalize.Name(req.Action.Tool) {
		return proofErr(FailActionMismatch, "tool is not the approved tool")
	}
	want, err := ActionHash(ApplyModifications(req.Action.Parameters, resp.Modifications))
	if err != nil {
		return proofErr(FailActionMismatch, "approved parameters cannot be hashed")
	}
	got, err := ActionHash(args)
	if err != nil {
		return proofErr(FailActionMismatch, "executed parameters cannot be hashed")
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return proofErr(FailActionMismatch, "executed parameters are not the approved parameters")
	}
	return nil
}
