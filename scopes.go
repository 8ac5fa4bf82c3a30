package gatehouse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// ScopeOptions configure OAuth scopes per tool (package scope): the
// "scope" stage refuses a tools/call whose bearer token lacks a scope the
// call needs, tools/list shows each caller only the tools its token may
// call, and [Guard.ScopeChallenges] answers streamable-HTTP clients of
// protocol 2026-07-28 with an HTTP 403 step-up challenge.
//
// Argument rules (scope.When) are checked on the arguments as sent and as
// the handler receives them: with the tool's input-schema defaults filled
// in, as go-sdk does for typed tools, so leaving out an argument whose
// default needs a scope does not avoid it.
//
// The scope denial (and ScopeChallenges' 403) is only for a call that
// could run once the token had the scopes: a call the policy refuses
// anyway, whose tool the session's tools/list lacks, whose tool's name
// collides or definition changed since pinned, whose agent is suspended,
// or that needs an ask no one can answer, gets that refusal
// instead, still from the scope stage, before anything is spent but an
// in-flight slot. No client then asks its user to grant a scope for a
// call that cannot run, and a hidden tool answers as a missing one
// (unless pinned from another session's listing: -32013 to any token).
type ScopeOptions struct {
	// Policy says which scopes each call needs: scope.Parse, scope.Load or
	// scope.New. Required.
	Policy *scope.Policy
	// ResourceMetadataURL is the absolute URL of the server's OAuth
	// protected-resource metadata (RFC 9728), sent as resource_metadata in
	// challenges and denials. Optional, but clients need it to step up.
	ResourceMetadataURL string
	// MaxBodyBytes bounds the request body ScopeChallenges reads to learn
	// a call's arguments; a larger body is passed on unread (the stage
	// still refuses it, as a JSON-RPC error). 0 means DefaultMaxScopeBody.
	MaxBodyBytes int64
}

// DefaultMaxScopeBody is ScopeOptions.MaxBodyBytes by default.
const DefaultMaxScopeBody = 1 << 20

// Scope denials follow SEP-2643 (structured authorization denials, draft):
// data.authorization.reason is "insufficient_authorization", with one
// remediation hint of this type carrying the scopes (the SEP leaves hint
// types open; clients ignore types they do not know).
const (
	scopeDenialReason = "insufficient_authorization"
	scopeHintType     = "oauth_scope"
	maxAuditedScopes  = 64
	maxScopeLen       = 256
)

func (o *Options) validateScopes() error {
	s := o.Scopes
	if s == nil {
		return nil
	}
	var errs []error
	if s.Policy == nil {
		errs = append(errs, errors.New("gatehouse: Options.Scopes is set without Options.Scopes.Policy"))
	}
	if s.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("gatehouse: Options.Scopes.MaxBodyBytes %d is negative", s.MaxBodyBytes))
	}
	if s.MaxBodyBytes == 0 {
		s.MaxBodyBytes = DefaultMaxScopeBody
	}
	if u := s.ResourceMetadataURL; u != "" {
		pu, err := url.Parse(u)
		if err != nil || !pu.IsAbs() || (pu.Scheme != "https" && pu.Scheme != "http") || strings.ContainsAny(u, "\"\\ \t\r\n") {
			errs = append(errs, fmt.Errorf("gatehouse: Options.Scopes.ResourceMetadataURL %q is not an absolute http(s) URL that a WWW-Authenticate parameter can quote", u))
		}
	}
	return errors.Join(errs...)
}

// tokenScopes are the scopes of the request's bearer token (go-sdk
// auth.RequireBearerToken), nil without one.
func tokenScopes(req mcp.Request) []string {
	if req == nil {
		return nil
	}
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
		return ex.TokenInfo.Scopes
	}
	return nil
}

// scopeStage decides the call's scopes on the token's (before any limit is
// spent). The scopes required and granted ride on the call's context into
// every audit event of the call; a shortfall is refused with the SEP-2643
// shaped error, also under DenyAsToolResult (the client, not the model,
// has to act on it).
//
// A shortfall is answered with the challenge only for a call that could
// run once the token had the scopes: when a later stage would refuse the
// call whatever the token (refusedAnyway), that refusal is sent instead,
// so no client asks its user to grant a scope for a call that cannot run,
// and a tool hidden from the session is not named with its scopes. The
// call is still refused here: nothing is spent but an in-flight slot.
func (g *Guard) scopeStage(c *call) *refusal {
	r := g.scopeCheck(c, c.rawArgs)
	if r == nil || r.required == nil {
		return r // allowed, or arguments or a schema the scopes cannot be read on
	}
	if other := g.refusedAnyway(c); other != nil {
		return other
	}
	offerChallenge(c, r)
	return r
}

// offerChallenge hands a scope denial to ScopeChallenges, when the call
// came through it, to be answered with HTTP 403.
func offerChallenge(c *call, r *refusal) {
	if r == nil || r.required == nil {
		return
	}
	if s, ok := c.ctx.Value(challengeKey{}).(*challengeSlot); ok && s.owns(c.req) {
		s.set(r.required, r.err)
	}
}

// scopeShortPool is the in-flight "tool" of every call short of scopes
// while refusedAnyway decides it (no tool's normalized name has a NUL).
const scopeShortPool = "\x00scope-short"

// refusedAnyway is the refusal a call short of scopes would meet later
// whatever its token, in the pipeline's order: the policy's
// (policyDecision: blocked, a protected path, a tool missing from the
// session's listing), the dispatch stage's (a name collision), the pin
// stage's (a changed definition), a suspended agent's, or that of an ask
// no one can answer. It reads the listing and the trust level and spends
// nothing, under an in-flight slot (scopeShortSlot).
func (g *Guard) refusedAnyway(c *call) *refusal {
	if r := g.scopeShortSlot(c); r != nil {
		return r
	}
	d := g.policyDecision(c)
	if d.Outcome != policy.Allow && d.Outcome != policy.Ask {
		return &refusal{d: d, stage: "policy"}
	}
	if r := g.dispatchStage(c); r != nil {
		r.stage = "dispatch"
		return r
	}
	if !g.pins.off {
		if r := g.pinStage(c); r != nil {
			r.stage = "pin"
			return r
		}
	}
	if g.o.Trust != nil {
		if d = g.trustGate(c.ctx, d, c.agent, c.rawTool); d.Outcome == policy.Block {
			return &refusal{d: d, stage: "trust"}
		}
	}
	return g.unanswerable(c, d)
}

// scopeShortSlot takes an in-flight slot for refusedAnyway's work, which
// a call with the scopes does only once it holds one (a tools/list walk,
// for a name the server lacks a refresh of the tool index): the per-agent
// and total caps bound calls short of scopes too (the pipeline's undo
// releases the slot). They share one per-tool count (scopeShortPool), not
// the tool's own: a token short of a tool's scopes cannot fill that
// tool's cap for the calls that have them.
func (g *Guard) scopeShortSlot(c *call) *refusal {
	release, err := g.flight.Acquire(c.agent, scopeShortPool)
	if ce := (*ratelimit.CapacityError)(nil); errors.As(err, &ce) && ce.Cap == ratelimit.CapInFlightPerTool {
		pooled := *ce
		pooled.What = "calls in flight whose tokens lack a scope they need"
		err = &pooled
	}
	if err != nil {
		return &refusal{d: capacityDecision(c.md.Method, c.tool, err), stage: "inflight"}
	}
	c.release = release
	return nil
}

// unanswerable is answerStage's refusal of an ask no one can answer: no
// Asker, no passkey, no grant offered, and no elicitation (the tool is not
// one AddTool registered, as the index reads it now, or the client cannot
// show its form); nil for anything else.
func (g *Guard) unanswerable(c *call, d policy.Decision) *refusal {
	if d.Outcome != policy.Ask || g.o.Ask != nil || g.requiresApproval(c.rawTool, c.tool) || len(g.offers(c)) > 0 || c.srv == nil {
		return nil
	}
	reason := noAsker
	if _, elicits := c.srv.index.elicits(c.ctx, c.req, c.rawTool); elicits {
		if canElicit(c.req) {
			return nil
		}
		reason = noElicit
	}
	return &refusal{d: deniedAsk(d, reason), stage: "answer"}
}

// rescope checks the scopes again on the arguments the handler will
// receive, after an answer changed them (an Asker's approved
// modification, vault secrets): what runs is what the token must cover.
func (g *Guard) rescope(c *call) *refusal {
	if g.o.Scopes == nil {
		return nil
	}
	r := g.scopeCheck(c, c.req.Params.Arguments)
	offerChallenge(c, r)
	return r
}

func (g *Guard) scopeCheck(c *call, args json.RawMessage) *refusal {
	granted := tokenScopes(c.req)
	d, err := g.o.Scopes.Policy.Check(c.rawTool, args, granted)
	if err != nil {
		return refuse(invalidParams(c.tool, "Tool arguments must be a JSON object"))
	}
	if d, err = g.defaultedScopes(c, args, granted, d); err != nil {
		return refuse(internal(c.md.Method, c.tool, "The tool's input schema could not be read to apply its defaults, so the scopes the call needs are unknown and it was denied"))
	}
	c.ctx = withScopeAudit(c.ctx, d.Required, granted)
	if d.Allowed {
		return nil
	}
	dec := scopeDecision(c.md.Method, c.tool, d)
	return &refusal{d: dec, err: g.scopeError(dec, c.rawTool, d), required: d.Required}
}

// precheckChallengeAgent refuses approval/challenge/create, after the
// policy's and the listing's prechecks (precheckChallenge, pinChallenge),
// for a call of a suspended agent, then for one the token's scopes
// refuse: the scope stage's order (refusedAnyway), so a challenge that
// could not be issued whatever the token gets that refusal, not a scope
// denial, and no user approves a call the trust gate refuses.
func (g *Guard) precheckChallengeAgent(ctx context.Context, md policy.Decision, req mcp.Request, agent string) policy.Decision {
	if g.o.Approval == nil || md.Outcome != policy.Allow || md.Method != methodChallengeCreate {
		return md
	}
	tool, raw, ok := g.o.Approval.Server.ChallengedCall(req)
	if !ok {
		return md // the approver answers malformed params itself
	}
	if g.o.Trust != nil {
		allow := policy.Decision{Outcome: policy.Allow, Method: md.Method, Tool: normalizeTool(tool)}
		if td := g.trustGate(ctx, allow, agent, tool); td.Outcome == policy.Block {
			td.Reason = "No approval is asked for a call that cannot run: " + td.Reason
			return td
		}
	}
	return g.precheckScopes(md, tool, raw, req)
}

// precheckScopes refuses a passkey challenge for a call the token's
// scopes refuse, as precheckChallenge does for the policy: the user is
// never asked to approve a call that cannot run.
func (g *Guard) precheckScopes(md policy.Decision, tool string, args json.RawMessage, req mcp.Request) policy.Decision {
	if g.o.Scopes == nil {
		return md
	}
	d, err := g.o.Scopes.Policy.Check(tool, args, tokenScopes(req))
	if err != nil || d.Allowed {
		return md // malformed arguments were refused by the caller already
	}
	out := scopeDecision(md.Method, normalizeTool(tool), d)
	out.Reason = "No approval is asked for a call the token's scopes refuse: " + out.Reason
	return out
}

// scopeDecision is the audited denial of a scope shortfall.
func scopeDecision(method, tool string, d scope.Decision) policy.Decision {
	return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
		Reason: "The access token lacks the OAuth scope(s) " + strings.Join(d.Missing, " ") + " that this call needs; obtain a token with scope \"" + strings.Join(d.Required, " ") + "\" and retry",
		Method: method, Tool: tool, FailedRule: "scope",
	}
}

// scopeDenial is error.data of a scope denial: AIP §5.1's tool and reason,
// plus SEP-2643's authorization object.
type scopeDenial struct {
	Tool          string        `json:"tool"`
	Reason        string        `json:"reason"`
	Authorization authorization `json:"authorization"`
}

type authorization struct {
	Reason                string      `json:"reason"`
	CredentialDisposition string      `json:"credentialDisposition"`
	RemediationHints      []scopeHint `json:"remediationHints"`
}

type scopeHint struct {
	Type             string   `json:"type"`
	Scope            string   `json:"scope"`
	MissingScopes    []string `json:"missingScopes"`
	ResourceMetadata string   `json:"resource_metadata,omitempty"`
}

// scopeError is the JSON-RPC error of a scope denial (-32001 Forbidden:
// SEP-2643 has not assigned its code yet).
func (g *Guard) scopeError(dec policy.Decision, rawTool string, d scope.Decision) *jsonrpc.Error {
	data := scopeDenial{Tool: clipName(rawTool), Reason: dec.Reason, Authorization: authorization{
		Reason: scopeDenialReason, CredentialDisposition: "replacement",
		RemediationHints: []scopeHint{{Type: scopeHintType, Scope: strings.Join(d.Required, " "), MissingScopes: d.Missing, ResourceMetadata: g.o.Scopes.ResourceMetadataURL}},
	}}
	raw, err := json.Marshal(data)
	if err != nil {
		raw = nil
	}
	return &jsonrpc.Error{Code: int64(dec.Code), Message: dec.Message, Data: raw}
}

// scopeList filters a tools/list result by the caller's token: only tools
// whose own requirement it meets are listed, and the list is marked
// cacheScope "private" since it depends on the caller. The result is never
// changed in place. Hidden tools are still refused by the stage if called.
func (g *Guard) scopeList(res mcp.Result, req mcp.Request) mcp.Result {
	r, ok := res.(*mcp.ListToolsResult)
	if g.o.Scopes == nil || !ok || r == nil {
		return res
	}
	granted := tokenScopes(req)
	c := *r
	c.Tools = make([]*mcp.Tool, 0, len(r.Tools))
	for _, t := range r.Tools {
		if t != nil && g.o.Scopes.Policy.Listable(t.Name, granted) {
			c.Tools = append(c.Tools, t)
		}
	}
	c.CacheScope = "private"
	return &c
}

type scopeAuditKey struct{}

type scopeAudit struct{ required, granted []string }

func withScopeAudit(ctx context.Context, required, granted []string) context.Context {
	return context.WithValue(ctx, scopeAuditKey{}, scopeAudit{required: required, granted: granted})
}

// scopeMetadata adds the scope decision of the call (if any) to an audit
// event: the scopes the call required and those the token granted (never
// the token), bounded in count and length.
func scopeMetadata(ctx context.Context, e *audit.Event) {
	s, ok := ctx.Value(scopeAuditKey{}).(scopeAudit)
	if !ok {
		return
	}
	if e.Metadata == nil {
		e.Metadata = map[string]any{}
	}
	e.Metadata["scopes_required"] = boundScopes(s.required)
	e.Metadata["scopes_granted"] = boundScopes(s.granted)
}

func boundScopes(in []string) []string {
	out := make([]string, 0, min(len(in), maxAuditedScopes+1))
	for i, s := range in {
		if i == maxAuditedScopes {
			out = append(out, fmt.Sprintf("...%d more", len(in)-i))
			break
		}
		if len(s) > maxScopeLen || scope.ValidToken(s) != nil {
			s = "(invalid scope of " + fmt.Sprint(len(s)) + " bytes)"
		}
		out = append(out, s)
	}
	return out
}
