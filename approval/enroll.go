package approval

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// credParams are the algorithms offered at enrollment: ES256 first, then
// EdDSA and RS256 for authenticators without P-256 (Windows Hello).
var credParams = []protocol.CredentialParameter{
	{Type: protocol.PublicKeyCredentialType, Algorithm: -7},
	{Type: protocol.PublicKeyCredentialType, Algorithm: -8},
	{Type: protocol.PublicKeyCredentialType, Algorithm: -257},
}

// BeginEnrollment starts registering a credential for u (approval/enroll/begin,
// SEP-2672 §4.4.1). The options require user verification, ask for no
// attestation, and always carry excludeCredentials (an empty array when u has
// no credential). The registration challenge is fresh per call and pending
// for EnrollmentTTL.
func (g *Gate) BeginEnrollment(ctx context.Context, u User) (*EnrollBeginResult, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	creds, err := g.credentials.List(ctx, u.Handle)
	if err != nil {
		return nil, fmt.Errorf("approval: listing credentials: %w", errors.Join(ErrUnavailable, err))
	}
	exclude := make([]protocol.CredentialDescriptor, 0, len(creds))
	for i := range creds {
		exclude = append(exclude, descriptor(&creds[i]))
	}
	creation, session, err := g.wa.BeginRegistration(&waUser{u: u},
		webauthn.WithExclusions(exclude),
		webauthn.WithCredentialParameters(credParams),
		webauthn.WithConveyancePreference(protocol.PreferNoAttestation),
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementPreferred,
			UserVerification: protocol.VerificationRequired,
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("approval: building creation options: %w", err)
	}
	raw, err := decodeB64(session.Challenge)
	if err != nil {
		return nil, fmt.Errorf("approval: registration challenge: %w", err)
	}
	now := g.now()
	ch := &Challenge{
		ID: session.Challenge, Kind: KindEnrollment, UserHandle: append([]byte(nil), u.Handle...),
		Bytes: raw, ExpiresAt: now.Add(g.enrollmentTTL),
	}
	if err := g.challenges.Put(ctx, ch, now); err != nil {
		return nil, fmt.Errorf("approval: storing registration challenge: %w", err)
	}
	opts, err := json.Marshal(creation.Response)
	if err != nil {
		return nil, err
	}
	// go-webauthn omits an empty excludeCredentials; §4.4.1 requires [].
	var m map[string]json.RawMessage
	if err := json.Unmarshal(opts, &m); err != nil {
		return nil, err
	}
	if _, ok := m["excludeCredentials"]; !ok {
		m["excludeCredentials"] = json.RawMessage("[]")
	}
	if opts, err = json.Marshal(m); err != nil {
		return nil, err
	}
	return &EnrollBeginResult{Options: opts}, nil
}

// FinishEnrollment verifies a registration response for u and persists the
// credential (approval/enroll/finish, SEP-2672 §4.4.2). The response must
// answer a pending registration challenge issued to u (else
// no_pending_enrollment), verify under go-webauthn with user verification
// (else verification_failed), and carry a credential ID enrolled for nobody
// (else credential_already_enrolled, checked after verification and before
// persisting, atomically with the write). The challenge is consumed only
// once the response verified.
func (g *Gate) FinishEnrollment(ctx context.Context, u User, response json.RawMessage) (*EnrollFinishResult, error) {
	return g.finishEnrollment(ctx, u, response, false)
}

// FinishFirstEnrollment is FinishEnrollment for a user's first credential
// only: when u has a credential enrolled already, it fails with an error
// wrapping [ErrHasCredentials] and stores nothing. The check is atomic with
// the write when the credential store implements [FirstCredentialAdder]
// (the stores of this module do), so of two enrollments finished at the
// same moment for a user without credentials, one at most lands. With other
// stores it is atomic only among the calls of this Gate.
func (g *Gate) FinishFirstEnrollment(ctx context.Context, u User, response json.RawMessage) (*EnrollFinishResult, error) {
	return g.finishEnrollment(ctx, u, response, true)
}

func (g *Gate) finishEnrollment(ctx context.Context, u User, response json.RawMessage, first bool) (*EnrollFinishResult, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	if len(response) == 0 || len(response) > g.maxEvidence {
		return nil, reject(ReasonVerificationFailed, "registration response missing or too large", nil)
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(response)
	if err != nil {
		return nil, reject(ReasonVerificationFailed, "registration response is malformed", err)
	}
	now := g.now()
	id := parsed.Response.CollectedClientData.Challenge
	ch, err := g.challenges.Get(ctx, id, now)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, reject(ReasonNoPendingEnrollment, "no pending enrollment for this response", nil)
	case err != nil:
		return nil, reject(ReasonNoPendingEnrollment, "pending enrollments could not be read", errors.Join(ErrUnavailable, err))
	case ch.Kind != KindEnrollment || !sameHandle(ch.UserHandle, u.Handle):
		return nil, reject(ReasonNoPendingEnrollment, "no pending enrollment for this user", nil)
	case ch.Consumed:
		return nil, reject(ReasonNoPendingEnrollment, "the enrollment was completed already", nil)
	case !now.Before(ch.ExpiresAt):
		return nil, reject(ReasonNoPendingEnrollment, "the enrollment expired", nil)
	}
	session := webauthn.SessionData{
		Challenge: ch.ID, RelyingPartyID: g.rpID, UserID: u.Handle,
		UserVerification: protocol.VerificationRequired, CredParams: credParams,
	}
	wc, err := g.wa.CreateCredential(&waUser{u: u}, session, parsed)
	if err != nil {
		return nil, reject(ReasonVerificationFailed, "registration response did not verify", err)
	}
	if !wc.Flags.UserVerified {
		return nil, reject(ReasonVerificationFailed, "the authenticator did not verify the user", nil)
	}
	if err := g.challenges.Consume(ctx, ch.ID, now); err != nil {
		return nil, reject(ReasonNoPendingEnrollment, "the enrollment was completed already or expired", storeCause(err))
	}
	c := &Credential{
		ID: wc.ID, UserHandle: append([]byte(nil), u.Handle...), PublicKey: wc.PublicKey,
		SignCount: wc.Authenticator.SignCount, AttestationFormat: wc.AttestationFormat,
		AAGUID: wc.Authenticator.AAGUID, UserVerified: true,
		BackupEligible: wc.Flags.BackupEligible, BackupState: wc.Flags.BackupState,
		CreatedAt: now.UTC(),
	}
	for _, t := range parsed.Response.Transports {
		c.Transports = append(c.Transports, string(t))
	}
	if err := g.addCredential(ctx, c, first); err != nil {
		if errors.Is(err, ErrDuplicate) {
			return nil, reject(ReasonCredentialAlreadyEnrolled, "this credential is enrolled already", nil)
		}
		return nil, fmt.Errorf("approval: storing the credential: %w", err)
	}
	return &EnrollFinishResult{Success: true, CredentialID: b64(c.ID), CreatedAt: c.CreatedAt}, nil
}

// addCredential stores c; with first, only if c's user has no credential
// (see FinishFirstEnrollment).
func (g *Gate) addCredential(ctx context.Context, c *Credential, first bool) error {
	if !first {
		return g.credentials.Add(ctx, c)
	}
	if fa, ok := g.credentials.(FirstCredentialAdder); ok {
		return fa.AddFirst(ctx, c)
	}
	mu := &g.firstLocks[firstLockIndex(c.UserHandle)]
	mu.Lock()
	defer mu.Unlock()
	have, err := g.credentials.List(ctx, c.UserHandle)
	if err != nil {
		return errors.Join(ErrUnavailable, err)
	}
	if len(have) > 0 {
		return ErrHasCredentials
	}
	return g.credentials.Add(ctx, c)
}

// firstLockIndex picks one of the Gate's first-enrollment locks for a user
// handle (a fixed set: memory does not grow with the number of users).
func firstLockIndex(user []byte) int {
	h := fnv.New32a()
	h.Write(user)
	return int(h.Sum32() % firstLockCount)
}

// storeCause keeps a store error as the cause, marking non-sentinel
// failures as ErrUnavailable.
func storeCause(err error) error {
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConsumed) || errors.Is(err, ErrExpired) {
		return err
	}
	return errors.Join(ErrUnavailable, err)
}

func decodeB64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func sameHandle(a, b []byte) bool { return string(a) == string(b) }
