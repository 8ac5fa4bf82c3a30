package consent

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// Request is what the root middleware asks about: one tools/call the policy
// answered with "ask".
type Request struct {
	Tool     string          // tool name; normalized again with [normalize.Name]
	Server   string          // upstream server name, if any
	Args     map[string]any  // arguments as received, numbers as json.Number
	Agent    Agent           // who is calling
	Reason   string          // why consent is needed (the policy's reason); shown to the human
	Risk     policy.Risk     // "" means the classifier's risk
	Category policy.Category // "" means the classifier's category
	// Timeout is the rule's timeout (ACP §5.1); 0 means AskerOptions.Timeout.
	Timeout  time.Duration
	RuleID   string
	RuleName string
	// Level is the rule's required level, shown in the request's policy
	// section; "" means the risk level.
	Level string
	// Scopes are the ways the server offers to remember an approval;
	// channels read them with [OfferedScopes] and answer in Reply.Scope.
	Scopes []ScopeOption
}

// Outcome is how a consent request ended. The zero value denies.
type Outcome uint8

// The outcomes of [Asker.Ask]. Only OutcomeApproved lets the call run.
const (
	OutcomeDenied   Outcome = iota // the human denied (AIP -32004 "User denied")
	OutcomeApproved                // approved, proof verified, nonce consumed
	OutcomeExpired                 // no answer before expires_at (AIP -32005 "User approval timeout")
	OutcomeFailed                  // channel, proof, store or audit failure: deny
)

// String returns "denied", "approved", "expired" or "failed".
func (o Outcome) String() string {
	switch o {
	case OutcomeApproved:
		return "approved"
	case OutcomeExpired:
		return "expired"
	case OutcomeFailed:
		return "failed"
	}
	return "denied"
}

// Answer is the result of [Asker.Ask]. Run the call only when Approved()
// is true, and then with Args, never with the original arguments.
type Answer struct {
	Outcome Outcome
	// Args are the parameters to run with: the request's arguments, or
	// with the human's modifications applied. nil unless approved.
	Args map[string]any
	// Modified reports an approval with modifications.
	Modified bool
	// RequestID is the consent request's id ("cr_..."), "" when no
	// request was made.
	RequestID string
	// Response is the signed decision (for the audit log); nil when no
	// human decided.
	Response *ConsentResponse
	// Reason says why the call was not approved; never values.
	Reason string
	// Grant lets vault.Vault.Inject put secrets into exactly Args, once. nil
	// unless approved.
	Grant *Grant
	// Attestation says who vouched for the answer ("human" or "client");
	// record it with the approval, never call a client-attested answer a
	// verified human's.
	Attestation Attestation
	// Scope is the scope the human chose from Request.Scopes, ScopeOnce
	// when none. It is the channel's word beside the signed response: the
	// ACP response has no member for it, so the proof does not cover it.
	Scope string
}

// Approved reports whether the call may run (with Args).
func (a Answer) Approved() bool { return a.Outcome == OutcomeApproved && a.Grant != nil }

// Grant is the proof, inside the process, that a human approved one call
// with these exact arguments. Only [Asker.Ask] makes Grants; vault.Vault.Inject
// consumes one ([Grant.Consume]). A Grant is safe for concurrent use.
type Grant struct {
	requestID string
	tool      string
	server    string
	argsHash  string
	used      atomic.Bool
}

// RequestID returns the id of the consent request the grant comes from.
func (g *Grant) RequestID() string { return g.requestID }

// GrantScope is what a consumed [Grant] approved: the request, and the
// normalized tool and server the call runs on.
type GrantScope struct {
	RequestID string
	Tool      string
	Server    string
}

// Consume checks that g approves tool with exactly args (their
// [ActionHash]) and marks it used: it succeeds once per Grant. A nil or
// zero Grant, another tool or other arguments, and a second use are
// [ErrNoConsent]. vault.Vault.Inject consumes the Grant this way before it
// injects secrets.
func (g *Grant) Consume(tool string, args map[string]any) (GrantScope, error) {
	if g == nil || g.argsHash == "" {
		return GrantScope{}, fmt.Errorf("%w: no grant", ErrNoConsent)
	}
	h, err := ActionHash(args)
	if err != nil || h != g.argsHash || normalize.Name(tool) != g.tool {
		return GrantScope{}, fmt.Errorf("%w: the grant of %s is for another tool or other arguments", ErrNoConsent, g.requestID)
	}
	if !g.used.CompareAndSwap(false, true) {
		return GrantScope{}, fmt.Errorf("%w: the grant of %s was already used", ErrNoConsent, g.requestID)
	}
	return GrantScope{RequestID: g.requestID, Tool: g.tool, Server: g.server}, nil
}

// AskerOptions configure an [Asker]. nil means defaults.
type AskerOptions struct {
	// Timeout is how long a human has when a Request has none (default
	// 120s, ACP §8.1 defaults.timeout_seconds).
	Timeout time.Duration
	// ApprovalTTL is how long an approval stays valid after the decision
	// (conditions.valid_until; default 60s).
	ApprovalTTL time.Duration
	// Classifier fills in category and risk (default: the ACP §5.5 table).
	Classifier *policy.Classifier
	// OnEvent receives consent_requested, consent_approved, consent_denied
	// and consent_expired events (default: none).
	OnEvent EventFunc
	// Now is the clock for timestamps (default time.Now). Waiting uses real
	// timers whatever the clock.
	Now func() time.Time
	// MaxAsksPerAgent bounds how many consent requests one agent (Agent.ID)
	// may make per AskWindow (defaults DefaultMaxAsksPerAgent per
	// DefaultAskWindow; negative means no limit). Beyond it Ask fails with
	// [ErrCapacity] without asking: one agent cannot flood the humans, or
	// the shared nonce stores with its approvals, for everyone else.
	MaxAsksPerAgent int
	AskWindow       time.Duration
	// RequireHuman refuses approvals that no channel attested as a
	// human's (Reply.Attestation other than AttestedHuman, such as
	// elicitation answers): the call is denied with a reason saying so.
	RequireHuman bool
}

// Default values of [AskerOptions].
const (
	DefaultTimeout     = 120 * time.Second
	DefaultApprovalTTL = 60 * time.Second
)

// Asker asks a human through a [Channel] and turns the answer into a
// signed, verified decision (ACP §2.4 steps 4-6). It is what the root
// middleware's Options.Asker holds. An Asker is safe for concurrent use.
type Asker struct {
	ch       Channel
	signer   *Signer
	verifier *Verifier
	class    *policy.Classifier
	timeout  time.Duration
	ttl      time.Duration
	onEvent  EventFunc
	now      func() time.Time
	human    bool // RequireHuman
	asks     *askLimiter
}

// NewAsker returns an Asker that asks through ch, signs decisions with
// signer and consumes nonces in nonces (required, shared by every replica
// that verifies). opts may be nil. It starts no goroutines.
func NewAsker(ch Channel, signer *Signer, nonces NonceStore, opts *AskerOptions) (*Asker, error) {
	if ch == nil || signer == nil {
		return nil, fmt.Errorf("%w: NewAsker needs a Channel and a Signer", ErrInvalidOptions)
	}
	var o AskerOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout < 0 || o.ApprovalTTL < 0 {
		return nil, fmt.Errorf("%w: AskerOptions.Timeout %v and ApprovalTTL %v must be >= 0 (0 means default)", ErrInvalidOptions, o.Timeout, o.ApprovalTTL)
	}
	a := &Asker{ch: ch, signer: signer, class: o.Classifier, timeout: o.Timeout, ttl: o.ApprovalTTL, onEvent: o.OnEvent, now: o.Now, human: o.RequireHuman,
		asks: newAskLimiter(o.MaxAsksPerAgent, o.AskWindow)}
	if a.timeout == 0 {
		a.timeout = DefaultTimeout
	}
	if a.ttl == 0 {
		a.ttl = DefaultApprovalTTL
	}
	if a.now == nil {
		a.now = time.Now
	}
	v, err := NewVerifier([]ed25519.PublicKey{signer.PublicKey()}, nonces, &VerifierOptions{Now: a.now})
	if err != nil {
		return nil, err
	}
	a.verifier = v
	return a, nil
}

// Ask asks a human about r and returns the verified answer. It blocks until
// the human answers, the request expires, or ctx is done.
//
// The call may run only when the Answer is Approved. A timeout is
// OutcomeExpired with a nil error; a human's denial is OutcomeDenied with a
// nil error; everything else that is not an approval (channel failure,
// refused proof, replayed nonce, store or event failure, ctx cancelled) is
// OutcomeFailed with an error saying why. A non-nil error never comes with
// an approval.
func (a *Asker) Ask(ctx context.Context, r Request) (Answer, error) {
	if err := a.asks.allow(r.Agent.ID, a.now()); err != nil {
		return Answer{Outcome: OutcomeFailed, Reason: "too many consent requests from this agent"}, err
	}
	creq, err := a.consentRequest(r)
	if err != nil {
		return Answer{Outcome: OutcomeFailed, Reason: "invalid consent request"}, err
	}
	if _, err := Prompt(creq); err != nil {
		// Never ask about a call the human cannot be shown in full names.
		return Answer{Outcome: OutcomeFailed, RequestID: creq.ID, Reason: "the call cannot be shown to a human"}, err
	}
	ev := Event{RequestID: creq.ID, Agent: creq.Agent.ID, Tool: creq.Action.Tool, Server: creq.Action.Server,
		Category: creq.Action.Category, Risk: creq.Action.RiskLevel, RuleID: r.RuleID, Channel: a.ch.Name()}
	start := creq.Timestamp
	emit := func(t EventType, decision, reason string) error {
		e := ev
		e.Type, e.Time, e.Decision, e.Reason = t, a.now(), decision, reason
		if t != EventRequested {
			e.ResponseTime = e.Time.Sub(start)
		}
		return a.onEvent.emit(ctx, e)
	}
	fail := func(reason string, err error) (Answer, error) {
		if eerr := emit(EventDenied, "denied", reason); eerr != nil {
			err = errors.Join(err, fmt.Errorf("%w: %w", ErrAudit, eerr))
		}
		return Answer{Outcome: OutcomeFailed, RequestID: creq.ID, Reason: reason}, err
	}
	if err := emit(EventRequested, "", ""); err != nil {
		return Answer{Outcome: OutcomeFailed, RequestID: creq.ID, Reason: "consent request not recorded"}, fmt.Errorf("%w: %w", ErrAudit, err)
	}

	wait, cancel := context.WithTimeout(ctx, creq.ExpiresAt.Sub(creq.Timestamp))
	reply, err := a.ch.Ask(withScopes(wait, r.Scopes), creq)
	timedOut := wait.Err() != nil && ctx.Err() == nil
	cancel()
	switch {
	case ctx.Err() != nil:
		return fail("consent request cancelled", fmt.Errorf("consent: request cancelled: %w", ctx.Err()))
	case timedOut || (err == nil && a.now().After(creq.ExpiresAt)):
		// ACP §5.1: auto-deny at expiry; a late answer counts as none.
		eerr := emit(EventExpired, "expired", "no answer before expires_at")
		if eerr != nil {
			eerr = fmt.Errorf("%w: %w", ErrAudit, eerr)
		}
		return Answer{Outcome: OutcomeExpired, RequestID: creq.ID, Reason: "consent request expired"}, eerr
	case err != nil:
		return fail("consent channel failed", fmt.Errorf("%w: %s: %w", ErrChannel, a.ch.Name(), err))
	}

	scope, scopeErr := chosenScope(r.Scopes, reply.Scope)
	resp, err := a.respond(creq, reply, scope)
	if err != nil {
		return fail("invalid reply from channel", err)
	}
	ev.Approver, ev.Attestation = resp.Approver.ID, resp.Approver.Attestation
	if !reply.Decision.approves() {
		if eerr := emit(EventDenied, string(Denied), "denied by the approver"); eerr != nil {
			return Answer{Outcome: OutcomeDenied, RequestID: creq.ID, Response: resp, Reason: "denied by the approver"}, fmt.Errorf("%w: %w", ErrAudit, eerr)
		}
		return Answer{Outcome: OutcomeDenied, RequestID: creq.ID, Response: resp, Reason: "denied by the approver"}, nil
	}

	if a.human && resp.Approver.Attestation != AttestedHuman {
		return fail("the approval is the MCP client's word, not a human's (AskerOptions.RequireHuman)",
			fmt.Errorf("%w: %s answered with attestation %q; AskerOptions.RequireHuman accepts only answers a channel attests as a human's", ErrChannel, a.ch.Name(), resp.Approver.Attestation))
	}
	if scopeErr != nil {
		return fail("the approval chose a scope that was not offered", scopeErr)
	}
	args := ApplyModifications(creq.Action.Parameters, resp.Modifications)
	if err := a.verifier.Verify(ctx, creq, resp, creq.Action.Tool, args); err != nil {
		return fail("consent proof refused", err)
	}
	h, _ := ActionHash(args) // verified above
	ev.ArgsHash = h
	if err := emit(EventApproved, string(resp.Decision), ""); err != nil {
		return Answer{Outcome: OutcomeFailed, RequestID: creq.ID, Response: resp, Reason: "approval not recorded"}, fmt.Errorf("%w: %w", ErrAudit, err)
	}
	return Answer{
		Outcome:     OutcomeApproved,
		Args:        args,
		Modified:    resp.Decision == ApprovedWithModifications,
		RequestID:   creq.ID,
		Response:    resp,
		Grant:       &Grant{requestID: creq.ID, tool: creq.Action.Tool, server: creq.Action.Server, argsHash: h},
		Attestation: resp.Approver.Attestation,
		Scope:       scope,
	}, nil
}

// consentRequest builds the ACP request for r.
func (a *Asker) consentRequest(r Request) (*ConsentRequest, error) {
	tool := normalize.Name(r.Tool)
	cl := a.class.Classify(tool)
	if r.Risk != "" {
		cl.Risk = r.Risk
	}
	if r.Category != "" {
		cl.Category = r.Category
	}
	timeout := r.Timeout
	if timeout < 0 {
		return nil, fmt.Errorf("%w: timeout %v, want >= 0", ErrInvalidRequest, timeout)
	}
	if timeout == 0 {
		timeout = a.timeout
	}
	level := r.Level
	if level == "" {
		level = string(cl.Risk)
	}
	act := Action{Tool: tool, Server: r.Server, Category: cl.Category, RiskLevel: cl.Risk, Parameters: r.Args, Description: r.Reason}
	if act.Parameters == nil {
		act.Parameters = map[string]any{}
	}
	return NewConsentRequest(act, r.Agent, PolicyRef{RuleID: r.RuleID, RuleName: r.RuleName, RequiredLevel: level}, a.now(), timeout)
}

// attestation records an unattested reply as the client's word.
func attestation(a Attestation) Attestation {
	if a == AttestedHuman {
		return AttestedHuman
	}
	return AttestedClient
}

// respond turns a channel's reply into a signed response.
// scope is the scope chosen (signed; ScopeOnce or "" for one call).
func (a *Asker) respond(creq *ConsentRequest, reply Reply, scope string) (*ConsentResponse, error) {
	switch reply.Decision {
	case Approved, Denied:
		if len(reply.Modifications) != 0 {
			return nil, fmt.Errorf("%w: modifications with decision %s", ErrChannel, reply.Decision)
		}
	case ApprovedWithModifications:
		if len(reply.Modifications) == 0 {
			return nil, fmt.Errorf("%w: approved_with_modifications without modifications", ErrChannel)
		}
	default:
		return nil, fmt.Errorf("%w: unknown decision %q", ErrChannel, clip(string(reply.Decision)))
	}
	now := a.now().UTC()
	resp := &ConsentResponse{
		RequestID:  creq.ID,
		Timestamp:  now,
		Decision:   reply.Decision,
		Approver:   Approver{ID: reply.Approver, Channel: a.ch.Name(), Attestation: attestation(reply.Attestation)},
		Conditions: Conditions{ValidUntil: now.Add(a.ttl), SingleUse: true},
		Nonce:      creq.Nonce,
	}
	if reply.Decision.approves() && scope != "" && scope != ScopeOnce {
		resp.Conditions.Scope, resp.Conditions.SingleUse = scope, false
	}
	if reply.Decision == ApprovedWithModifications {
		resp.Modifications = reply.Modifications
	}
	if err := a.signer.Sign(creq, resp); err != nil {
		return nil, err
	}
	return resp, nil
}
