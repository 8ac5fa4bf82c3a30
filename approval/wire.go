package approval

import (
	"encoding/json"
	"time"
)

// Wire names of SEP-2672.
const (
	// MetaKey is the _meta key of the tool annotation (§4.2) and of the
	// evidence on tools/call (§4.5).
	MetaKey = "io.modelcontextprotocol/verified-approval"
	// CapabilityKey is the key under capabilities.extensions (§4.3).
	CapabilityKey = "verifiedApproval"
	// MethodEnrollBegin, MethodEnrollFinish and MethodChallengeCreate are the
	// JSON-RPC methods of §4.4.
	MethodEnrollBegin     = "approval/enroll/begin"
	MethodEnrollFinish    = "approval/enroll/finish"
	MethodChallengeCreate = "approval/challenge/create"
	// EvidenceMethodWebAuthn is the only conformant evidence method (§4.5).
	EvidenceMethodWebAuthn = "webauthn"
	// ErrorCode is the JSON-RPC code of every approval rejection (§4.10).
	ErrorCode = -32001
)

// Class is a tool's authenticatorClass policy (SEP-2672 §4.7).
type Class string

const (
	// ClassCrossPlatform accepts credentials whose stored transports include
	// at least one of hybrid, usb, nfc or ble. It is the default.
	ClassCrossPlatform Class = "cross-platform"
	// ClassPlatform accepts any enrolled credential.
	ClassPlatform Class = "platform"
)

// ToolMeta is the value of a tool's _meta[MetaKey] annotation (§4.2).
type ToolMeta struct {
	Required           string `json:"required"` // always "verified"
	AuthenticatorClass Class  `json:"authenticatorClass,omitempty"`
}

// Annotation returns the §4.2 annotation for a tool with class c ("" means
// cross-platform and is written explicitly).
func Annotation(c Class) ToolMeta {
	if c == "" {
		c = ClassCrossPlatform
	}
	return ToolMeta{Required: "verified", AuthenticatorClass: c}
}

// ParseToolMeta reads a tool's _meta[MetaKey] value (raw JSON). ok is true
// only when required is the literal "verified"; unknown sibling fields are
// ignored (§4.2). An absent or unknown authenticatorClass reads as
// cross-platform.
func ParseToolMeta(raw []byte) (m ToolMeta, ok bool) {
	if err := json.Unmarshal(raw, &m); err != nil || m.Required != "verified" {
		return ToolMeta{}, false
	}
	if m.AuthenticatorClass != ClassPlatform {
		m.AuthenticatorClass = ClassCrossPlatform
	}
	return m, true
}

// EnrollBeginResult is the result of approval/enroll/begin (§4.4.1): the
// PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create.
type EnrollBeginResult struct {
	Options json.RawMessage `json:"options"`
}

// EnrollFinishParams are the params of approval/enroll/finish (§4.4.2).
type EnrollFinishParams struct {
	Response json.RawMessage `json:"response"` // RegistrationResponseJSON, unmodified
}

// EnrollFinishResult is the result of approval/enroll/finish (§4.4.2).
type EnrollFinishResult struct {
	Success      bool      `json:"success"`
	CredentialID string    `json:"credentialId"` // base64url
	CreatedAt    time.Time `json:"createdAt"`
}

// ChallengeParams are the params of approval/challenge/create (§4.4.3).
type ChallengeParams struct {
	ToolName  string          `json:"toolName"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ChallengeResult is the challenge envelope returned by
// approval/challenge/create (§4.4.3).
type ChallengeResult struct {
	ChallengeID    string          `json:"challengeId"`
	DisplayText    string          `json:"displayText"`
	ExpiresAt      time.Time       `json:"expiresAt"`
	RequestOptions json.RawMessage `json:"requestOptions"` // PublicKeyCredentialRequestOptionsJSON
}

// Evidence is the value of params._meta[MetaKey] on tools/call (§4.5).
type Evidence struct {
	Method      string          `json:"method"`
	ChallengeID string          `json:"challengeId"`
	Response    json.RawMessage `json:"response"` // AuthenticationResponseJSON, unmodified
}
