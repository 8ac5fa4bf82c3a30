package approval

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// CreateChallenge issues a per-call challenge for u to call tool with args
// (approval/challenge/create, SEP-2672 §4.4.3). args are the proposed
// arguments as raw JSON; they are canonicalized and hashed ([ActionHash])
// and only the hash is kept. The WebAuthn challenge is 32 CSPRNG bytes
// followed by the action hash; allowCredentials lists u's credentials that
// satisfy the tool's authenticatorClass (§4.7); userVerification is
// "required"; displayText comes from the tool's Describe function.
//
// Errors: tool_not_approved_required, no_eligible_credential (as [*Error]),
// [ErrInvalidArguments], [ErrInvalidUser], and store failures.
func (g *Gate) CreateChallenge(ctx context.Context, u User, tool string, args json.RawMessage) (*ChallengeResult, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	p, ok := g.Policy(tool)
	if !ok {
		return nil, reject(ReasonToolNotApprovalRequired, "the tool does not require verified approval", nil)
	}
	if len(args) > g.maxArgs {
		return nil, fmt.Errorf("%w: arguments exceed %d bytes", ErrInvalidArguments, g.maxArgs)
	}
	hash, err := ActionHash(tool, args, g.serverID)
	if err != nil {
		return nil, err
	}
	creds, err := g.credentials.List(ctx, u.Handle)
	if err != nil {
		return nil, fmt.Errorf("approval: listing credentials: %w", errors.Join(ErrUnavailable, err))
	}
	allow := make([]protocol.CredentialDescriptor, 0, len(creds))
	for i := range creds {
		if Eligible(p.Class, creds[i].Transports) {
			allow = append(allow, descriptor(&creds[i]))
		}
	}
	if len(allow) == 0 {
		return nil, reject(ReasonNoEligibleCredential, "no enrolled credential satisfies the tool's authenticator class", nil)
	}
	text, err := p.Describe(tool, args)
	if err != nil {
		return nil, fmt.Errorf("%w: describing the call: %v", ErrInvalidArguments, err)
	}
	text = visibleText(text, true)

	var buf [16 + 32 + 32]byte // challenge ID || nonce || action hash
	if _, err := rand.Read(buf[:48]); err != nil {
		return nil, fmt.Errorf("approval: reading random bytes: %w", err)
	}
	copy(buf[48:], hash[:])
	wire := append([]byte(nil), buf[16:]...) // nonce || actionHash, §4.4.3

	assertion, _, err := g.wa.BeginLogin(&waUser{u: u, creds: []webauthn.Credential{{ID: allow[0].CredentialID}}},
		webauthn.WithChallenge(wire),
		webauthn.WithAllowedCredentials(allow),
		webauthn.WithUserVerification(protocol.VerificationRequired),
	)
	if err != nil {
		return nil, fmt.Errorf("approval: building request options: %w", err)
	}
	opts, err := json.Marshal(assertion.Response)
	if err != nil {
		return nil, err
	}

	now := g.now()
	ch := &Challenge{
		ID: b64(buf[:16]), Kind: KindApproval, UserHandle: append([]byte(nil), u.Handle...),
		Tool: tool, Definition: definitionFrom(ctx), ActionHash: hash, Bytes: wire, ExpiresAt: now.Add(g.challengeTTL),
	}
	if err := g.challenges.Put(ctx, ch, now); err != nil {
		return nil, fmt.Errorf("approval: storing the challenge: %w", err)
	}
	return &ChallengeResult{ChallengeID: ch.ID, DisplayText: text, ExpiresAt: ch.ExpiresAt.UTC(), RequestOptions: opts}, nil
}
