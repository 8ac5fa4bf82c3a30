package gatehouse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/elicitation"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// The reasons an ask is denied without a human.
const (
	noAsker = "Tool requires user approval, and no approver is configured: set gatehouse.Options.Ask (for example a consent channel), or register the tool with gatehouse.AddTool to ask through MCP elicitation"
	// noElicit: AddTool's tool, a client without the elicitation capability,
	// and no Asker to fall back to.
	noElicit = "Tool requires user approval, and this client cannot show approval prompts (it does not support MCP elicitation); use a client that does, or configure gatehouse.Options.Ask on the server"
)

// answerStage is the one place an ask is answered, and a passkey checked:
//
//   - a tool that requires verified approval needs passkey evidence,
//     whatever the policy said (the evidence also answers an ask);
//   - an ask for a tool registered with AddTool on this server, from a
//     client that can elicit, is asked by the AddTool wrapper (elicitation);
//   - any other ask goes to Options.Ask.Asker;
//   - without one it is denied (-32004) with a reason that says what to set.
func (g *Guard) answerStage(c *call) *refusal {
	if r, used := g.grantAnswer(c); used {
		return r
	}
	if g.requiresApproval(c.rawTool, c.tool) {
		return g.timedAsk(c, "passkey", (*Guard).passkeyAnswer)
	}
	if c.d.Outcome != policy.Ask {
		return nil
	}
	// Asks are rare and wait for a human: read the server's tools again, so
	// only the tool AddTool registered, as it is now, asks by elicitation.
	def, elicits := c.srv.index.elicits(c.ctx, c.req, c.rawTool)
	switch {
	case elicits && canElicit(c.req):
		c.elicit, c.def = true, def
		return nil
	case g.o.Ask != nil:
		return g.timedAsk(c, "asker", (*Guard).askAnswer)
	case elicits:
		return refuse(deniedAsk(c.d, noElicit))
	}
	return refuse(deniedAsk(c.d, noAsker))
}

func deniedAsk(d policy.Decision, reason string) policy.Decision {
	d = d.Denied(false)
	d.Reason = reason
	return d
}

// canElicit reports whether the client of req can show AddTool's form:
// it declared elicitation (per request on 2026-07-28, from initialize
// before) with form mode, or without modes (which means form); a client
// that declared only URL mode cannot.
func canElicit(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// askAnswer asks the Asker and carries out its answer: allowed (possibly
// with modified arguments, re-evaluated, and with run arguments for the
// handler only), or denied.
func (g *Guard) askAnswer(c *call) *refusal {
	ctx := elicitation.WithRequest(withApprovalPrompt(c.ctx), c.req)
	// The human is asked about the arguments the handler receives (the
	// input schema's defaults filled in); the policy, the audit and a
	// grant keep the call as sent.
	shown := c.args
	full, defaulted, ok := g.shownArgs(c)
	if !ok {
		return refuse(deniedAsk(c.d, cannotShowDefaults))
	}
	if len(defaulted) > 0 {
		var err error
		if shown, err = decodeArgs(full); err != nil {
			return refuse(deniedAsk(c.d, cannotShowDefaults))
		}
	}
	d, ans, err := g.ask(ctx, c.d, AskRequest{Agent: c.agent, Server: g.serverName(c), Args: shown, Defaulted: defaulted, Scopes: g.offersShown(c)})
	if err != nil {
		return refuse(d)
	}
	if r := g.recheckPin(c); r != nil {
		return r
	}
	c.d = d
	if ans.Attestation != "" {
		c.d.Reason += " (attestation: " + ans.Attestation + ")"
	}
	g.injected.add(ans.Scrubber) // before the handler can echo them (vaultscrub.go)
	if ans.Args != nil {
		raw, err := json.Marshal(ans.Args)
		if err != nil {
			return refuse(invalidParams(c.tool, "The approved arguments cannot be encoded"))
		}
		c.req = withArguments(c.req, raw)
		c.args, c.rawArgs = ans.Args, raw
	}
	if ans.RunArgs != nil {
		// Secrets for the handler only: the audit keeps rawArgs.
		raw, err := json.Marshal(ans.RunArgs)
		if err != nil {
			return refuse(internal(c.md.Method, c.tool, "The approved arguments cannot be prepared"))
		}
		c.req = withArguments(c.req, raw)
	}
	if r := g.rescope(c); r != nil {
		return r
	}
	return g.rememberAnswer(c, ans)
}

var errNotApproved = errors.New("gatehouse: not approved")

// ask runs the Asker for an ask decision on the call r (agent, server,
// arguments and scopes; the rest comes from d). It returns the decision to
// carry out, the answer, and errNotApproved when the call must not run.
func (g *Guard) ask(ctx context.Context, d policy.Decision, r AskRequest) (policy.Decision, Answer, error) {
	rule, _ := g.p.Rule(d.Tool)
	actx, cancel := context.WithTimeout(ctx, g.askTimeout(d))
	defer cancel()
	r.Tool, r.Reason, r.Rule, r.ACPRule, r.Risk = d.Tool, d.Reason, rule, d.Rule, d.Risk
	ans, err := g.o.Ask.Asker.Ask(actx, r)
	timedOut := errors.Is(err, context.DeadlineExceeded) || errors.Is(actx.Err(), context.DeadlineExceeded)
	switch {
	case err != nil && timedOut:
		return d.Denied(true), Answer{}, errNotApproved
	case err != nil:
		g.log.WarnContext(ctx, "gatehouse: asker failed", "tool", d.Tool, "error", err)
		return deniedAsk(d, "Approval could not be obtained; the call was denied"), Answer{}, errNotApproved
	case actx.Err() != nil:
		return d.Denied(timedOut), Answer{}, errNotApproved
	case !ans.Approved:
		out := d.Denied(false)
		if ans.Reason != "" {
			out.Reason = fmt.Sprintf("User denied the call: %s", ans.Reason)
		}
		return out, Answer{}, errNotApproved
	}
	approved := policy.Decision{Outcome: policy.Allow, Method: d.Method, Tool: d.Tool, Reason: "User approved", Violation: d.Violation}
	if ans.Args != nil {
		// The human changed the call: the changed call must pass the policy too.
		again := g.evaluateCall(r.Server, policy.MethodToolsCall, d.Tool, ans.Args)
		if again.Outcome != policy.Allow && again.Outcome != policy.Ask {
			again.Reason = "The approved modification is not allowed by policy: " + again.Reason
			return again, Answer{}, errNotApproved
		}
		approved.Reason = "User approved with modified arguments"
	}
	return approved, ans, nil
}

// serverName is the name of the server a call reached, for the human, for
// what an approval binds (AskRequest.Server) and for ACP rules'
// match.server: Options.ServerName, else the name the MCP server gives
// itself (its implementation name).
func (g *Guard) serverName(c *call) string { return g.serverNameOf(c.srv) }

// serverNameOf is serverName for a call to srv ("" when srv is nil and
// Options.ServerName is unset).
func (g *Guard) serverNameOf(srv *served) string {
	if g.o.ServerName != "" || srv == nil {
		return g.o.ServerName
	}
	x := &srv.index
	x.mu.Lock()
	s := x.server
	x.mu.Unlock()
	name, _, _ := strings.Cut(s, "\x00")
	return name
}

// askTimeout is the wait for a human: an ACP rule's own timeout or
// Options.Ask.Timeout, and never past the conversation step's reservation
// (a step that expired while the human decided would waste the approval).
func (g *Guard) askTimeout(d policy.Decision) time.Duration {
	t := g.o.Ask.Timeout
	if d.AskTimeout > 0 {
		t = d.AskTimeout
	}
	if l := g.o.Limits; l != nil && l.Conversations != nil {
		if ttl := l.Conversations.ReservationTTL(); t >= ttl {
			t = ttl * 9 / 10
		}
	}
	return t
}

// withArguments returns a copy of req with new raw arguments; the
// client's request is not changed.
func withArguments(req *mcp.CallToolRequest, raw json.RawMessage) *mcp.CallToolRequest {
	c := *req
	p := *req.Params
	p.Arguments = raw
	c.Params = &p
	return &c
}
