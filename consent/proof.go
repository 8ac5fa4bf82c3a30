package consent

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"
)

// timeFormat is how instants appear in the signed payload: RFC 3339 in UTC
// with milliseconds, so the payload bytes depend only on the instant.
const timeFormat = "2006-01-02T15:04:05.000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// payload is the signed object of ACP §6.2. JCS sorts its keys.
type payload struct {
	ActionHash        string   `json:"action_hash"`
	Decision          Decision `json:"decision"`
	ModificationsHash *string  `json:"modifications_hash"`
	Nonce             string   `json:"nonce"`
	RequestID         string   `json:"request_id"`
	Timestamp         string   `json:"timestamp"`
	ValidUntil        string   `json:"valid_until"`
}

// SigningPayload returns the exact bytes a proof signs (ACP §6.2): the JCS
// serialization of {action_hash, decision, modifications_hash, nonce,
// request_id, timestamp, valid_until}, where action_hash is [ActionHash] of
// the request's parameters and modifications_hash is null, or
// "sha256:<hex>" of the JCS of resp.Modifications when the decision is
// approved_with_modifications. Instants are RFC 3339 UTC with milliseconds.
//
// The request id and nonce are the response's own: [Verifier.Check]
// compares them with the request's separately.
func SigningPayload(req *ConsentRequest, resp *ConsentResponse) ([]byte, error) {
	if req == nil || resp == nil {
		return nil, proofErr(FailMalformed, "nil request or response")
	}
	ah, err := ActionHash(req.Action.Parameters)
	if err != nil {
		return nil, err
	}
	p := payload{
		ActionHash: ah,
		Decision:   resp.Decision,
		Nonce:      resp.Nonce,
		RequestID:  resp.RequestID,
		Timestamp:  formatTime(resp.Timestamp),
		ValidUntil: formatTime(resp.Conditions.ValidUntil),
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
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, proofErr(FailMalformed, "payload cannot be canonicalized")
	}
	return out, nil
}

// Signer signs consent responses with an Ed25519 private key (ACP §6). A
// Signer is safe for concurrent use.
type Signer struct {
	priv   ed25519.PrivateKey
	pubHex string
}

// NewSigner returns a Signer for priv, which must be a full 64-byte Ed25519
// private key. The key is copied.
func NewSigner(priv ed25519.PrivateKey) (*Signer, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: Ed25519 private key of %d bytes, want %d", ErrInvalidOptions, len(priv), ed25519.PrivateKeySize)
	}
	k := append(ed25519.PrivateKey(nil), priv...)
	return &Signer{priv: k, pubHex: hex.EncodeToString(k.Public().(ed25519.PublicKey))}, nil
}

// PublicKey returns the public half of the signing key.
func (s *Signer) PublicKey() ed25519.PublicKey {
	return append(ed25519.PublicKey(nil), s.priv.Public().(ed25519.PublicKey)...)
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
	msg, err := SigningPayload(req, resp)
	if err != nil {
		return err
	}
	resp.Proof = Proof{
		Algorithm:         AlgorithmEd25519,
		PublicKey:         s.pubHex,
		Signature:         hex.EncodeToString(ed25519.Sign(s.priv, msg)),
		SignedPayloadHash: sha256Hex(msg),
	}
	return nil
}
