package gatehouse

import (
	"bytes"
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// approvalMethods are SEP-2672's methods (§4.4). With Options.Approval they
// pass method authorization without being listed (and are audited);
// without it they are not registered and the server answers -32601.
var approvalMethods = map[string]bool{
	"approval/enroll/begin":  true,
	"approval/enroll/finish": true,
	methodChallengeCreate:    true,
}

// methodChallengeCreate is SEP-2672 §4.4.3's method (approval.MethodChallengeCreate).
const methodChallengeCreate = "approval/challenge/create"

// approvalUser is the approval user of a request's agent: set for
// approval/* methods and tools/call. A bearer-token identity is its own
// approval user. Without one, approval is refused unless
// Options.ApprovalForUnauthenticated says the transport itself is the
// authentication (a local stdio server), and then every such request is the
// one LocalApprovalUserID: a client name is chosen by the client, so a
// client that renamed itself must not find a user without passkeys.
func (g *Guard) approvalUser(ctx context.Context, agent string) (context.Context, bool) {
	if strings.HasPrefix(agent, "user:") {
		return g.o.Approval.Server.WithUserID(ctx, agent), true
	}
	if !g.o.Approval.ForUnauthenticated {
		return ctx, false
	}
	return g.o.Approval.Server.WithUserID(ctx, LocalApprovalUserID()), true
}

// localApprovalID is the identity of LocalApprovalUserID; no agent identity
// has this form ("user:…", "client:…" or the configured default are hashed
// to other handles).
const localApprovalID = "local:transport-authenticated"

// LocalApprovalUserID returns the id of the approval user of every request
// without a bearer-token identity when Options.Approval.ForUnauthenticated
// is set (a local stdio server: whoever started the server): enroll that
// user's passkeys out of band for approval.NewUser(LocalApprovalUserID()).
func LocalApprovalUserID() string { return localApprovalID }

// ApprovalUserID returns the id of the approval user the guard gives
// requests whose bearer token names userID (auth.TokenInfo.UserID): enroll
// a user's passkeys out of band, with approval.Gate.BeginEnrollment and
// FinishEnrollment, for approval.NewUser(ApprovalUserID(userID)), the same
// user the guard later verifies calls for.
func ApprovalUserID(userID string) string { return "user:" + bound(userID) }

const noApprovalUser = "Verified approval needs an authenticated user (an HTTP bearer token): self-declared client names cannot own passkeys. A local stdio server can set gatehouse.Options.ApprovalForUnauthenticated"

// authorizeApprovalMethod is the method authorization of approval/*.
func (g *Guard) authorizeApprovalMethod(ctx context.Context, md policy.Decision, agent string) (context.Context, policy.Decision) {
	if g.o.Approval == nil || !approvalMethods[md.Method] || g.p.DeniesMethod(md.Method) {
		return ctx, md
	}
	ctx, ok := g.approvalUser(ctx, agent)
	if !ok {
		return ctx, policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden, Reason: noApprovalUser, Method: md.Method}
	}
	return ctx, policy.Decision{Outcome: policy.Allow, Method: md.Method}
}

// precheckChallenge refuses approval/challenge/create for a call the
// policy would refuse anyway (a tool not allowed, an argument that fails
// its rule, a protected path): the user is never asked to approve a call
// that cannot run. A call that would be asked (action: ask) may be
// approved. Other methods pass unchanged.
func (g *Guard) precheckChallenge(md policy.Decision, req mcp.Request, srv *served) policy.Decision {
	if md.Method != methodChallengeCreate {
		return md
	}
	tool, raw, ok := g.o.Approval.Server.ChallengedCall(req)
	if !ok {
		return md // the approver answers malformed params itself
	}
	args, err := decodeArgs(raw)
	if err != nil {
		return invalidParams(normalize.Name(tool), err.Error())
	}
	if fs, hidden := g.promptHidden(raw); hidden { // the displayText would pass DLP on its way out
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: "No approval is asked for a call the user cannot see: " + hiddenBySecretScan(fs), Method: md.Method, Tool: normalize.Name(tool)}
	}
	d := g.evaluateCall(g.serverNameOf(srv), policy.MethodToolsCall, tool, args)
	if d.Outcome == policy.Allow || d.Outcome == policy.Ask || g.annotationDecides(normalize.Name(tool), d) {
		return md // the listing, the trust level, then the scopes (precheckChallengeAgent)
	}
	d.Reason = "No approval is asked for a call the policy refuses: " + d.Reason
	d.Method = md.Method
	return d
}

// passkeyAnswer checks the passkey evidence of a call to a tool that
// requires verified approval (SEP-2672 §4.8), after every check that
// denies by policy, limit or budget, so none of those burns a valid
// challenge. Only the commit (step, charge, audit) comes after: it fails
// only when a concurrent call took the last unit of budget or a store or
// the audit log fails, and then the approval is spent (the user approves
// again). The evidence also answers an ask rule.
func (g *Guard) passkeyAnswer(c *call) *refusal {
	deny := c.d.Denied(false)
	deny.Code, deny.Message = policy.CodeForbidden, policy.MessageForbidden
	ctx, ok := g.approvalUser(c.ctx, c.agent)
	if !ok {
		deny.Reason = noApprovalUser
		return refuse(deny)
	}
	if ctx == nil { // an Approver's nil context: nothing can be checked
		return refuse(internal(c.d.Method, c.tool, "Verified approval could not be checked, so the call was denied"))
	}
	c.ctx = ctx
	// A refusal reason without an error is a refusal too: an Approver
	// that reports one never lets the call run (fail closed). The
	// definition the pin stage checked binds the challenge (a changed tool
	// is another tool).
	// The Approver sees a copy of the request: what it changes (arguments,
	// name) is not what runs. A nil context from it is a failure to check.
	dctx := g.o.Approval.Server.WithDefinition(ctx, approvalDefinition(c.srv, c.digest))
	if dctx == nil {
		return refuse(internal(c.d.Method, c.tool, "Verified approval could not be checked, so the call was denied"))
	}
	if reason, err := g.o.Approval.Server.CheckCall(dctx, approverCopy(c.req)); err != nil || reason != "" {
		if reason != "" {
			deny.Reason = "Verified approval failed: " + reason
		} else {
			deny = internal(c.d.Method, c.tool, "Verified approval could not be checked, so the call was denied")
		}
		return &refusal{d: deny, err: err}
	}
	c.d = policy.Decision{Outcome: policy.Allow, Method: c.d.Method, Tool: c.d.Tool, Reason: "Verified approval (passkey)", Violation: c.d.Violation}
	return nil
}

// approvalDefinition is what a passkey challenge binds beside SEP-2672's
// action hash (Approver.WithDefinition): the server the call reaches, by
// the name and version it gives itself (as the elicitation state and
// grants bind it), and the definition digest the pin stage checked ("" with
// pinning off). One Guard may serve several servers with one Approver,
// and the action hash names only the Gate's serverId: an approval asked
// on a staging server ran the same tool, same arguments, on production.
func approvalDefinition(srv *served, digest string) string {
	server := ""
	if srv != nil {
		x := &srv.index
		x.mu.Lock()
		server = x.server
		x.mu.Unlock()
	}
	return server + "\x00" + digest
}

// requiresApproval reports whether a tool is gated by verified approval,
// by its name as called or normalized.
func (g *Guard) requiresApproval(raw, tool string) bool {
	if g.o.Approval == nil {
		return false
	}
	a := g.o.Approval.Server
	return a.Requires(raw) || a.Requires(tool)
}

// approverCopy is req for an Approver to read: its own params and
// argument bytes, so that nothing it does to them reaches the handler.
func approverCopy(req *mcp.CallToolRequest) *mcp.CallToolRequest {
	c := *req
	if req.Params != nil {
		p := *req.Params
		p.Arguments = bytes.Clone(req.Params.Arguments)
		c.Params = &p
	}
	return &c
}
