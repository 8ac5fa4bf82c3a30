package consent

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Protocol constants of ACP §4.
const (
	Version          = "0.2.0"            // the ACP version this package speaks
	TypeRequest      = "consent_request"  // ConsentRequest.Type
	TypeResponse     = "consent_response" // ConsentResponse.Type
	AlgorithmEd25519 = "Ed25519"          // Proof.Algorithm
)

// riskRank orders risk levels; an unknown level ranks as critical (fail closed).
func riskRank(r policy.Risk) int {
	if n := r.Rank(); n > 0 {
		return n
	}
	return policy.RiskCritical.Rank()
}

// Decision is a human's answer (ACP §4.2).
type Decision string

// The decisions of ACP §4.2.
const (
	Approved                  Decision = "approved"
	Denied                    Decision = "denied"
	ApprovedWithModifications Decision = "approved_with_modifications"
)

// approves reports whether d lets the call run.
func (d Decision) approves() bool { return d == Approved || d == ApprovedWithModifications }

// Agent identifies the agent asking (ACP §4.1 agent).
type Agent struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Command string `json:"command"`
}

// Action is the tool call a human is asked about (ACP §4.1 action).
// Parameters are the call's arguments as received (numbers as json.Number);
// references to vault secrets stay references, never values.
type Action struct {
	Tool        string          `json:"tool"`
	Server      string          `json:"server"`
	Category    policy.Category `json:"category"`
	RiskLevel   policy.Risk     `json:"risk_level"`
	Parameters  map[string]any  `json:"parameters"`
	Description string          `json:"description"`
}

// PolicyRef names the rule that asked (ACP §4.1 policy).
type PolicyRef struct {
	RuleID        string `json:"rule_id"`
	RuleName      string `json:"rule_name"`
	RequiredLevel string `json:"required_level"`
}

// ConsentRequest is the message a channel shows a human (ACP §4.1). Its ID
// and Nonce are random and made with the request, never at signing time.
type ConsentRequest struct {
	Type      string    `json:"type"`
	Version   string    `json:"version"`
	ID        string    `json:"id"`
	Timestamp time.Time `json:"timestamp"`
	ExpiresAt time.Time `json:"expires_at"` // auto-deny at this instant (ACP §5.1 timeout)
	Agent     Agent     `json:"agent"`
	Action    Action    `json:"action"`
	Policy    PolicyRef `json:"policy"`
	Nonce     string    `json:"nonce"`
}

// Approver says who decided and where (ACP §4.2 approver), and how far the
// answer is known to come from a human (Attestation, signed).
type Approver struct {
	ID          string      `json:"id"`
	Channel     string      `json:"channel"`
	Attestation Attestation `json:"attestation"`
}

// Attestation says who vouches for an answer. It is part of the signed
// payload, so a proof of a client-attested answer cannot be presented as a
// human's.
type Attestation string

const (
	// AttestedHuman: the channel authenticated the answer as the human's
	// (terminal on the server's TTY, signed webhook, Telegram from the
	// configured chat).
	AttestedHuman Attestation = "human"
	// AttestedClient: the answer is the MCP client's word (elicitation):
	// the agent's own client may answer without any human. Asker refuses
	// it unless AskerOptions.AcceptClientAttested is set.
	AttestedClient Attestation = "client"
)

// Conditions bound an approval (ACP §4.2 conditions).
type Conditions struct {
	ValidUntil time.Time `json:"valid_until"`
	// SingleUse is true when the approval covers the one call, false when
	// the human chose a Scope that remembers it.
	SingleUse bool `json:"single_use"`
	// Scope is the ID of the scope the human chose from the offered ones
	// (Request.Scopes), signed; empty for one call ([ScopeOnce]). An
	// extension of ACP §4.2.
	Scope string `json:"scope,omitempty"`
}

// Proof is the Ed25519 signature over the response (ACP §4.2 proof, §6.2).
type Proof struct {
	Algorithm         string `json:"algorithm"`
	PublicKey         string `json:"public_key"`          // hex
	Signature         string `json:"signature"`           // hex
	SignedPayloadHash string `json:"signed_payload_hash"` // "sha256:<hex>" of the signed bytes
}

// ConsentResponse is a signed decision (ACP §4.2). Modifications is nil
// unless Decision is ApprovedWithModifications; then its top-level keys
// replace those of the request's parameters (see [ApplyModifications]).
type ConsentResponse struct {
	Type          string         `json:"type"`
	Version       string         `json:"version"`
	RequestID     string         `json:"request_id"`
	Timestamp     time.Time      `json:"timestamp"`
	Decision      Decision       `json:"decision"`
	Approver      Approver       `json:"approver"`
	Modifications map[string]any `json:"modifications"`
	Conditions    Conditions     `json:"conditions"`
	Nonce         string         `json:"nonce"`
	// RequestHash is [RequestHash] of the request answered, signed.
	RequestHash string `json:"request_hash"`
	Proof       Proof  `json:"proof"`
}

// NewConsentRequest returns a request about a with a fresh random ID
// ("cr_" and 26 base32 characters, 128 bits) and nonce ("n_" and a random
// UUID), stamped now and expiring after timeout. The action's parameters
// must be plain JSON; they are not copied, so do not change them afterwards.
func NewConsentRequest(a Action, agent Agent, ref PolicyRef, now time.Time, timeout time.Duration) (*ConsentRequest, error) {
	if strings.TrimSpace(a.Tool) == "" {
		return nil, fmt.Errorf("%w: empty tool name", ErrInvalidRequest)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%w: timeout %v, want > 0", ErrInvalidRequest, timeout)
	}
	if !a.RiskLevel.Valid() {
		return nil, fmt.Errorf("%w: risk level %q, want low, medium, high or critical", ErrInvalidRequest, clip(string(a.RiskLevel)))
	}
	if _, err := ActionHash(a.Parameters); err != nil {
		return nil, err
	}
	now = now.UTC()
	return &ConsentRequest{
		Type:      TypeRequest,
		Version:   Version,
		ID:        newID(),
		Timestamp: now,
		ExpiresAt: now.Add(timeout),
		Agent:     agent,
		Action:    a,
		Policy:    ref,
		Nonce:     newNonce(),
	}, nil
}

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newID returns "cr_" and 128 random bits in lower-case base32.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "cr_" + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// newNonce returns "n_" and a random (version 4) UUID.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return "n_" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// clip bounds an untrusted string quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
