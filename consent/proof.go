package consent

import (
	"crypto"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// timeFormat is how instants appear in the signed payload: RFC 3339 in UTC
// with milliseconds, so the payload bytes depend only on the instant.
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// RequestHash returns "sha256:" and the hex SHA-256 of the canonical JSON
// of the whole request a proof answers: its id, nonce, timestamp and
// expires_at, the agent (id, name, command), the action (tool, server,
// category, risk level, parameters, description) and the policy reference.
// The signed payload carries it (request_hash), so a proof verifies only
// for the request it was made for: not for another tool, server, agent,
// parameter set or a later expiry (fault: the request travelling with a
// proof used to be unsigned).
func RequestHash(req *ConsentRequest) (string, error) {
	if req == nil {
		return "", proofErr(FailMalformed, "nil request")
	}
	params := req.Action.Parameters
	if params == nil {
		params = map[string]any{}
	}
	return hashJSON(map[string]any{
		"type": req.Type, "version": req.Version, "id": req.ID, "nonce": req.Nonce,
		"timestamp": formatTime(req.Timestamp), "expires_at": formatTime(req.ExpiresAt),
		"agent": map[string]any{"id": req.Agent.ID, "name": req.Agent.Name, "command": req.Agent.Command},
		"action": map[string]any{
			"tool": req.Action.Tool, "server": req.Action.Server, "category": string(req.Action.Category),
			"risk_level": string(req.Action.RiskLevel), "parameters": params, "description": req.Action.Description,
		},
		"policy": map[string]any{"rule_id": req.Policy.RuleID, "rule_name": req.Policy.RuleName, "required_level": req.Policy.RequiredLevel},
	}, "request")
}

// payload is the signed object of ACP §6.2, extended with request_hash,
// approver_id, approver_channel, attestation and single_use. Its keys are
// written in sorted order.
type payload struct {
	ActionHash        string   `json:"action_hash"`
	ApproverChannel   string   `json:"approver_channel"`
	ApproverID        string   `json:"approver_id"`
	Attestation       string   `json:"attestation"`
	Decision          Decision `json:"decision"`
	ModificationsHash *string  `json:"modifications_hash"`
	Nonce             string   `json:"nonce"`
	RequestHash       string   `json:"request_hash"`
	RequestID         string   `json:"request_id"`
	Scope             string   `json:"scope,omitempty"`
	SingleUse         bool     `json:"single_use"`
	Timestamp         string   `json:"timestamp"`
	ValidUntil        string   `json:"valid_until"`
}

// SigningPayload returns the exact bytes a proof signs (ACP §6.2): the JCS
// serialization of {action_hash, approver_channel, approver_id,
// attestation, decision, modifications_hash, nonce, request_hash,
// request_id, single_use, timestamp, valid_until}, where action_hash is
// [ActionHash] of the request's parameters, request_hash is [RequestHash]
// of the whole request (an extension of ACP §6.2: the spec's payload leaves
// the request's tool, server, agent and expiry unsigned), approver_id,
// approver_channel, attestation, single_use and scope are the response's
// (so a client-attested answer cannot be relabelled as a human's, nor one
// approver's answer as another's, nor a remembered approval as one call's:
// the spec leaves approver.id and conditions.single_use unsigned and has
// no scope; scope is left out of the payload when empty, one call), and
// modifications_hash is null, or "sha256:<hex>" of the JCS of
// resp.Modifications when the decision is approved_with_modifications.
// Instants are RFC 3339 UTC with milliseconds.
//
// The request id, nonce and request hash are the response's own:
// [Verifier.Check] compares them with the request's separately.
func SigningPayload(req *ConsentRequest, resp *ConsentResponse) ([]byte, error) {
	if req == nil || resp == nil {
		return nil, proofErr(FailMalformed, "nil request or response")
	}
	ah, err := ActionHash(req.Action.Parameters)
	if err != nil {
		return nil, err
	}
	p := payload{
		ActionHash:      ah,
		ApproverChannel: resp.Approver.Channel,
		ApproverID:      resp.Approver.ID,
		SingleUse:       resp.Conditions.SingleUse,
		Scope:           resp.Conditions.Scope,
		Attestation:     string(resp.Approver.Attestation),
		RequestHash:     resp.RequestHash,
		Decision:        resp.Decision,
		Nonce:           resp.Nonce,
		RequestID:       resp.RequestID,
		Timestamp:       formatTime(resp.Timestamp),
		ValidUntil:      formatTime(resp.Conditions.ValidUntil),
	}
	switch resp.Decision {
	case ApprovedWithModifications:
		if len(resp.Modifications) == 0 {
			return nil, proofErr(FailMalformed, "approved_with_modifications without modifications")
		}
		mh, err := hashJSON(resp.Modifications, "modifications")
		if err != nil {
			return nil, proofErr(FailMalformed, "modifications are not plain JSON")
		}
		p.ModificationsHash = &mh
	case Approved, Denied:
		if resp.Modifications != nil {
			return nil, proofErr(FailMalformed, "modifications present with decision "+string(resp.Decision))
		}
	default:
		return nil, proofErr(FailMalformed, fmt.Sprintf("unknown decision %q", clip(string(resp.Decision))))
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, proofErr(FailMalformed, "payload does not serialize")
	}
	out, err := jcs.Transform(raw, jcs.Strict)
	if err != nil {
		return nil, proofErr(FailMalformed, "payload cannot be canonicalized")
	}
	return out, nil
}

// Signer signs consent responses with an Ed25519 key (ACP §6): an
// ed25519.PrivateKey, or any crypto.Signer whose public key is Ed25519 (a
// key in a KMS or an HSM). A Signer is safe for concurrent use when its
// crypto.Signer is (an ed25519.PrivateKey is).
type Signer struct {
	key    crypto.Signer
	pub    ed25519.PublicKey
	pubHex string
	// external is true for a crypto.Signer other than an
	// ed25519.PrivateKey: its signatures are verified before use.
	external bool
}

// NewSigner returns a Signer for key: a full 64-byte ed25519.PrivateKey
// (copied), or a crypto.Signer whose Public() is an Ed25519 public key,
// which is asked to sign the payload itself (crypto.Hash(0), as Ed25519
// requires). Read key files with package keys.
func NewSigner(key crypto.Signer) (*Signer, error) {
	switch k := key.(type) {
	case nil:
		return nil, fmt.Errorf("%w: NewSigner needs a key", ErrInvalidOptions)
	case ed25519.PrivateKey:
		if len(k) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("%w: Ed25519 private key of %d bytes, want %d", ErrInvalidOptions, len(k), ed25519.PrivateKeySize)
		}
		c := append(ed25519.PrivateKey(nil), k...)
		pub := c.Public().(ed25519.PublicKey)
		return &Signer{key: c, pub: pub, pubHex: hex.EncodeToString(pub)}, nil
	case *ed25519.PrivateKey:
		if k == nil {
			return nil, fmt.Errorf("%w: NewSigner needs a key", ErrInvalidOptions)
		}
		return NewSigner(*k)
	}
	pub, ok := key.Public().(ed25519.PublicKey)
	if !ok || len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: the signer's public key is %T, want a 32-byte ed25519.PublicKey", ErrInvalidOptions, key.Public())
	}
	pub = append(ed25519.PublicKey(nil), pub...)
	return &Signer{key: key, pub: pub, pubHex: hex.EncodeToString(pub), external: true}, nil
}

// PublicKey returns the public half of the signing key.
func (s *Signer) PublicKey() ed25519.PublicKey {
	return append(ed25519.PublicKey(nil), s.pub...)
}

// sign signs msg; a signature from an external signer must verify under
// the public key it announced, or it is not used (fail closed: a KMS that
// answers with another key's signature, or garbage, gives an error here
// instead of proofs that fail later).
func (s *Signer) sign(msg []byte) ([]byte, error) {
	sig, err := s.key.Sign(nil, msg, crypto.Hash(0))
	if err != nil {
		return nil, fmt.Errorf("consent: signing the proof: %w", err)
	}
	if s.external && (len(sig) != ed25519.SignatureSize || !ed25519.Verify(s.pub, msg, sig)) {
		return nil, errors.New("consent: the signer returned a signature that does not verify under its public key")
	}
	return sig, nil
}

// Sign fills resp.Proof: the Ed25519 signature over [SigningPayload] and
// the SHA-256 of those bytes. It also sets resp.Type and resp.Version. Any
// later change to a signed field of resp, or to the request's parameters,
// makes verification fail.
func (s *Signer) Sign(req *ConsentRequest, resp *ConsentResponse) error {
	if resp == nil {
		return proofErr(FailMalformed, "nil response")
	}
	resp.Type, resp.Version = TypeResponse, Version
	rh, err := RequestHash(req)
	if err != nil {
		return err
	}
	resp.RequestHash = rh
	msg, err := SigningPayload(req, resp)
	if err != nil {
		return err
	}
	sig, err := s.sign(msg)
	if err != nil {
		return err
	}
	resp.Proof = Proof{
		Algorithm:         AlgorithmEd25519,
		PublicKey:         s.pubHex,
		Signature:         hex.EncodeToString(sig),
		SignedPayloadHash: sha256Hex(msg),
	}
	return nil
}
