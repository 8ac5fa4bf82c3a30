package approval

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// Call is a tools/call to verify.
type Call struct {
	Tool      string          // params.name, as received
	Arguments json.RawMessage // params.arguments, raw as received (empty when absent)
	Evidence  json.RawMessage // params._meta[MetaKey], raw; nil when absent
}

// Approval is what a successful [Gate.Verify] proves: this user approved
// this call with this credential.
type Approval struct {
	ChallengeID  string
	CredentialID []byte
	Tool         string
	SignCount    uint32
}

// Verify checks the approval evidence of a tools/call by user u, in the
// order of SEP-2672 §4.8:
//
//  1. evidence present                        missing_evidence
//  2. evidence an object with method, challengeId, response  missing_evidence
//  3. method is "webauthn"                    unsupported_method
//  4. challenge known (and issued to u)       challenge_unknown
//  5. challenge not consumed                  challenge_consumed
//  6. challenge not expired                   challenge_expired
//  7. challenge issued for this tool          challenge_wrong_tool
//  8. credential enrolled for u               unknown_credential
//  9. credential satisfies the tool's class   authenticator_class_mismatch
//  10. WebAuthn assertion verifies (UV required)  signature_verification_failed
//  11. counter advanced, unless stored 0      signature_counter_regression
//  12. recomputed action hash matches         argument_hash_mismatch
//  13. challenge consumed atomically          challenge_consumed (lost a race)
//  14. counter stored                         signature_counter_regression
//
// Verification (1-12) precedes consumption (13): a forged or mismatched
// submission never burns a valid challenge. Every failure is an [*Error]
// with the reason above; the tool must not run unless Verify returns a nil
// error. A store failure denies with the reason of its step and wraps
// [ErrUnavailable]. Verifying a call to a tool that does not require
// approval is refused with tool_not_approved_required.
func (g *Gate) Verify(ctx context.Context, u User, c Call) (*Approval, error) {
	p, ok := g.Policy(c.Tool)
	if !ok {
		return nil, reject(ReasonToolNotApprovalRequired, "the tool does not require verified approval", nil)
	}
	if u.check() != nil {
		return nil, reject(ReasonChallengeUnknown, "no user to verify the approval for", nil)
	}

	// Steps 1-2.
	ev := bytes.TrimSpace(c.Evidence)
	if len(ev) == 0 || bytes.Equal(ev, []byte("null")) {
		return nil, reject(ReasonMissingEvidence, "no approval evidence in params._meta", nil)
	}
	if len(ev) > g.maxEvidence {
		return nil, reject(ReasonMissingEvidence, "approval evidence is too large", nil)
	}
	method, challengeID, response, ok := parseEvidence(ev)
	if !ok {
		return nil, reject(ReasonMissingEvidence, "approval evidence is malformed", nil)
	}
	// Step 3.
	if method != EvidenceMethodWebAuthn {
		return nil, reject(ReasonUnsupportedMethod, "approval evidence method is not webauthn", nil)
	}

	// Steps 4-7.
	now := g.now()
	ch, err := g.challenges.Get(ctx, challengeID, now)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, reject(ReasonChallengeUnknown, "unknown challenge", nil)
	case err != nil:
		return nil, reject(ReasonChallengeUnknown, "challenges could not be read", errors.Join(ErrUnavailable, err))
	case ch.Kind != KindApproval || !sameHandle(ch.UserHandle, u.Handle):
		return nil, reject(ReasonChallengeUnknown, "unknown challenge", nil)
	case len(ch.Bytes) != 64:
		// nonce || actionHash (§4.4.3): anything else is a damaged store.
		return nil, reject(ReasonChallengeUnknown, "the stored challenge is malformed", ErrUnavailable)
	case ch.Consumed:
		return nil, reject(ReasonChallengeConsumed, "the challenge was used already", nil)
	case !now.Before(ch.ExpiresAt):
		return nil, reject(ReasonChallengeExpired, "the challenge expired", nil)
	case ch.Tool != c.Tool:
		return nil, reject(ReasonChallengeWrongTool, "the challenge was issued for another tool", nil)
	case ch.Definition != definitionFrom(ctx):
		return nil, reject(ReasonChallengeWrongTool, "the challenge was issued for another definition of the tool", nil)
	}

	// Step 8. The assertion is parsed once here (go-webauthn's parse after
	// a strict one-pass JSON decode, see parseAssertion); a response that
	// cannot be parsed still names its credential for this step, and fails
	// at step 10.
	parsed, parseErr := parseAssertion(response)
	var credID []byte
	if parseErr == nil {
		credID, ok = parsed.RawID, len(parsed.RawID) > 0
	} else {
		credID, ok = responseCredentialID(response)
	}
	if !ok {
		return nil, reject(ReasonUnknownCredential, "the assertion names no credential", nil)
	}
	cred, err := g.credentials.Get(ctx, u.Handle, credID)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, reject(ReasonUnknownCredential, "the credential is not enrolled", nil)
	case err != nil:
		return nil, reject(ReasonUnknownCredential, "credentials could not be read", errors.Join(ErrUnavailable, err))
	}
	// Step 9.
	if !Eligible(p.Class, cred.Transports) {
		return nil, reject(ReasonAuthenticatorClassMismatch, "the credential does not satisfy the tool's authenticator class", nil)
	}

	// Step 10. The session is rebuilt from the stored challenge; it requests
	// no extensions, so go-webauthn rejects any client extension output.
	if parseErr != nil {
		return nil, reject(ReasonSignatureFailed, "the assertion is malformed", parseErr)
	}
	session := webauthn.SessionData{
		Challenge: b64(ch.Bytes), RelyingPartyID: g.rpID, UserID: u.Handle,
		AllowedCredentialIDs: [][]byte{cred.ID}, UserVerification: protocol.VerificationRequired,
	}
	validated, err := g.wa.ValidateLogin(&waUser{u: u, creds: []webauthn.Credential{toWebAuthn(cred)}}, session, parsed)
	if err != nil {
		return nil, reject(ReasonSignatureFailed, "the assertion did not verify", err)
	}
	// Step 11: go-webauthn flags a counter that did not advance (stored 0
	// and received 0 is exempt).
	if validated.Authenticator.CloneWarning {
		return nil, reject(ReasonCounterRegression, "the signature counter did not advance", nil)
	}
	count := parsed.Response.AuthenticatorData.Counter

	// Step 12.
	if len(c.Arguments) > g.maxArgs {
		return nil, reject(ReasonArgumentHashMismatch, "the arguments are too large", nil)
	}
	hash, err := ActionHash(c.Tool, c.Arguments, g.serverID)
	if err != nil || subtle.ConstantTimeCompare(hash[:], ch.ActionHash[:]) != 1 ||
		subtle.ConstantTimeCompare(ch.Bytes[32:], ch.ActionHash[:]) != 1 {
		return nil, reject(ReasonArgumentHashMismatch, "the approval does not match the arguments of this call", err)
	}

	// Step 13.
	if err := g.challenges.Consume(ctx, ch.ID, now); err != nil {
		switch {
		case errors.Is(err, ErrConsumed):
			return nil, reject(ReasonChallengeConsumed, "the challenge was used already", nil)
		case errors.Is(err, ErrExpired):
			return nil, reject(ReasonChallengeExpired, "the challenge expired", nil)
		case errors.Is(err, ErrNotFound):
			return nil, reject(ReasonChallengeUnknown, "unknown challenge", nil)
		}
		return nil, reject(ReasonChallengeConsumed, "the challenge could not be consumed", errors.Join(ErrUnavailable, err))
	}
	// Step 14.
	if err := g.credentials.UpdateCounter(ctx, u.Handle, cred.ID, count); err != nil {
		return nil, reject(ReasonCounterRegression, "the signature counter could not be recorded", storeCause(err))
	}
	return &Approval{ChallengeID: ch.ID, CredentialID: cred.ID, Tool: c.Tool, SignCount: count}, nil
}

// parseEvidence reads the §4.5 envelope with exact key names (encoding/json
// would match keys case-insensitively). It splits the top-level object in
// one pass without decoding the response, which go-webauthn parses (and so
// validates) next; method and challengeId are decoded with encoding/json,
// any other member is checked with json.Valid, and duplicate keys are
// refused.
func parseEvidence(ev []byte) (method, challengeID string, response json.RawMessage, ok bool) {
	var seenMethod, seenID bool
	if !splitObject(ev, func(key string, val []byte) bool {
		switch key {
		case "method":
			if seenMethod {
				return false
			}
			seenMethod = true
			return decodeString(val, &method)
		case "challengeId":
			if seenID {
				return false
			}
			seenID = true
			return decodeString(val, &challengeID)
		case "response":
			if response != nil {
				return false
			}
			response = val
			return true
		}
		return json.Valid(val)
	}) || !seenMethod || challengeID == "" || len(response) == 0 || response[0] != '{' {
		return "", "", nil, false
	}
	return method, challengeID, response, true
}

// splitObject calls member for each member of the JSON object b, with the
// key decoded and the value's raw bytes, in one pass. It checks the object's
// structure (keys, colons, commas, balanced brackets, closed strings) but
// not the inside of values: member does that for the values it uses.
func splitObject(b []byte, member func(key string, val []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		var key string
		if !decodeString(b[i:end], &key) {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		end = skipValue(b, i)
		if end < 0 || !member(key, b[i:end]) {
			return false
		}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return skipSpace(b, i+1) == len(b)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := skipString(b, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ' ', '\t', '\n', '\r':
			if j == i {
				return -1
			}
			return j
		}
	}
	return -1
}

// responseCredentialID reads the credential ID of an assertion: rawId, or
// id, which must agree when both are present.
func responseCredentialID(response json.RawMessage) ([]byte, bool) {
	var r struct {
		ID    *string `json:"id"`
		RawID *string `json:"rawId"`
	}
	if json.Unmarshal(response, &r) != nil {
		return nil, false
	}
	var s string
	switch {
	case r.RawID != nil && r.ID != nil && *r.RawID != *r.ID:
		return nil, false
	case r.RawID != nil:
		s = *r.RawID
	case r.ID != nil:
		s = *r.ID
	default:
		return nil, false
	}
	id, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(id) == 0 || len(id) > 1023 {
		return nil, false
	}
	return id, true
}
