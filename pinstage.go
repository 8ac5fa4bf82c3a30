package gatehouse

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// listing is the tool definition a call is decided against, read once per
// call from the server's own tools/list (never from the client), so the
// annotations that decide (AnnotationDefaults) and the definition that is
// pinned are the same snapshot.
type listing struct {
	read bool
	tool *mcp.Tool // nil: no tool of that exact name
	err  error
}

// listed returns the definition the server lists now under the exact name
// the call dispatches to.
func (g *Guard) listed(c *call) (*mcp.Tool, error) {
	if !c.listing.read {
		c.listing.tool, c.listing.err = c.srv.index.current(c.ctx, c.req, c.rawTool)
		c.listing.read = true
	}
	return c.listing.tool, c.listing.err
}

// pinStage refuses a call to a tool whose definition differs from its pin
// with CodeDefinitionChanged, naming the tool and both digest prefixes. It
// reads the definition on every call: go-sdk announces a changed tool list
// late (debounced), to no one when no session is connected, and on
// protocol 2026-07-28 only to sessions that subscribed, so the Guard's
// index alone could be stale. A tool seen for the first time is pinned.
func (g *Guard) pinStage(c *call) *refusal {
	t, err := g.listed(c)
	if err != nil {
		g.log.Error("gatehouse: reading a tool's definition failed; the call was denied", "error", err) // the name is the client's: not logged
		return refuse(internal(c.md.Method, c.tool, "The server's tools could not be listed to check the tool's definition, so the call was denied"))
	}
	if t == nil {
		if c.srv.index.isPinned(c.rawTool) {
			// Pinned, yet not listed to this client: removed (go-sdk
			// would answer "unknown tool"), or hidden from this
			// session's listing by the server while still dispatched.
			// Its definition cannot be checked against its pin.
			return refuse(notListed(c.tool))
		}
		return nil // no such tool: go-sdk answers "unknown tool" and nothing runs
	}
	cur, err := c.srv.index.digest(t)
	if err != nil {
		g.log.Error("gatehouse: a tool's definition cannot be digested; calls to it are denied", "tool", clipName(t.Name), "error", err)
		return refuse(internal(c.md.Method, c.tool, "The tool's definition cannot be canonicalized for pinning, so the call was denied"))
	}
	pinned, ok := c.srv.index.pin(c.rawTool, cur)
	if !ok {
		return refuse(internal(c.md.Method, c.tool, fmt.Sprintf("The server has more than %d tools to pin, so the call was denied", maxPins)))
	}
	if cur != pinned {
		g.pins.noteDrift(Drift{Tool: c.rawTool, Pinned: pinned, Current: cur})
		g.log.Error("gatehouse: a tool's definition changed since it was pinned; calls to it are refused until the change is accepted",
			"tool", clipName(c.rawTool), "pinned", pinned, "current", cur)
		return refuse(definitionChanged(c.tool, c.rawTool, pinned, cur))
	}
	c.digest = cur
	return nil
}

// callDigest is the digest of the definition of the tool a call runs
// ([ToolDigest]): the one the pin stage checked, or, with pinning off,
// the definition listed now. Grants and approvals bind to it.
func (g *Guard) callDigest(c *call) (string, error) {
	if c.digest != "" {
		return c.digest, nil
	}
	t, err := g.listed(c)
	if err != nil {
		return "", err
	}
	if t == nil {
		return "", fmt.Errorf("gatehouse: no tool is registered under the name %q", clipName(c.rawTool))
	}
	return ToolDigest(t)
}

// pinList marks, in a tools/list result, each tool whose definition
// differs from its pin, and pins the tools it shows for the first time:
// what a client was shown is what its calls are held to. A changed tool
// stays listed (its calls are refused, and the client should know why) but
// none of its changed text reaches the model: it is listed with a notice
// as its description, an empty object schema, and _meta[pinMetaKey]
// holding both digests. A definition that cannot be digested is listed
// the same way.
func (g *Guard) pinList(srv *served, r *mcp.ListToolsResult) *mcp.ListToolsResult {
	if g.pins.off || srv == nil || r == nil {
		return r
	}
	var out []*mcp.Tool
	for i, t := range r.Tools {
		if t == nil {
			continue
		}
		cur, err := srv.index.digest(t)
		pinned, ok := "", false
		if err == nil {
			pinned, ok = srv.index.pin(t.Name, cur)
		}
		if err == nil && ok && pinned == cur {
			continue
		}
		if err == nil && ok {
			g.pins.noteDrift(Drift{Tool: t.Name, Pinned: pinned, Current: cur})
		}
		if out == nil {
			out = append([]*mcp.Tool(nil), r.Tools...)
		}
		out[i] = quarantined(t.Name, pinned, cur)
	}
	if out == nil {
		return r
	}
	c := *r
	c.Tools = out
	return &c
}

// quarantined is the tools/list entry of a tool whose definition changed
// since it was pinned (or cannot be digested: cur is then "").
func quarantined(name, pinned, cur string) *mcp.Tool {
	mark := map[string]any{"status": "changed", "pinned": pinned, "current": cur}
	desc := fmt.Sprintf("[gatehouse] The definition of this tool changed since it was pinned (pinned %s, now %s). Calls to it are refused until the server's author accepts the change.", prefix(pinned), prefix(cur))
	if cur == "" {
		mark["status"] = "undigestable"
		desc = "[gatehouse] The definition of this tool cannot be canonicalized for pinning. Calls to it are refused."
	}
	return &mcp.Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"}, Meta: mcp.Meta{pinMetaKey: mark}}
}

func prefix(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// pinChallenge binds an approval/challenge/create to the server it reaches
// and the definition the tool has now (Approver.WithDefinition,
// approvalDefinition; the server alone with pinning off), so that a
// passkey approval asked on one server of the Guard never runs on
// another, and one given
// for a tool whose definition changed and was accepted since is void: the
// call's pin stage binds the then current digest, and the Gate refuses a
// challenge issued under another one. A challenge for a tool whose
// definition differs from its pin is refused (-32013): the user is not
// asked to approve a call that would be refused.
//
// A challenge for a tool missing from the session's tools/list is refused
// as its call would be at the policy stage (pinning on or off): the user
// is not asked to approve a call that would be refused. So is a challenge
// whose arguments the tool would complete from its input-schema defaults
// (-32602, naming them): the displayText shows only what is sent.
func (g *Guard) pinChallenge(ctx context.Context, md policy.Decision, req mcp.Request, srv *served) (context.Context, policy.Decision) {
	if g.o.Approval == nil || md.Outcome != policy.Allow || md.Method != methodChallengeCreate {
		return ctx, md
	}
	name, args, ok := g.o.Approval.Server.ChallengedCall(req)
	if !ok {
		return ctx, md // the approver answers malformed params itself
	}
	t, err := srv.index.current(ctx, req, name)
	if err != nil {
		return ctx, internal(md.Method, normalizeTool(name), "The server's tools could not be listed to check the tool's definition, so no approval was asked")
	}
	if t == nil {
		d := g.unlistedTool(srv, md.Method, name)
		d.Method = md.Method
		return ctx, d
	}
	// The displayText shows the arguments sent (the Gate's Describe knows
	// no schema), the handler receives them with the input schema's
	// defaults filled in: the user must see every value that runs.
	if _, defaulted, err := defaultedArgs(t, args); err != nil {
		return ctx, internal(md.Method, normalizeTool(name), "The tool's input-schema defaults cannot be applied, so the arguments it would run with are unknown and no approval was asked")
	} else if len(defaulted) > 0 {
		d := invalidParams(normalizeTool(name), "No approval is asked for a call whose tool would fill in arguments from its input-schema defaults ("+quotedNames(defaulted)+"): the user would approve without seeing them. Send every one of them, in the challenge and in the call")
		d.Method = md.Method
		return ctx, d
	}
	if g.pins.off {
		return g.o.Approval.Server.WithDefinition(ctx, approvalDefinition(srv, "")), md // the server still binds it
	}
	cur, err := ToolDigest(t)
	if err != nil {
		return ctx, internal(md.Method, normalizeTool(name), "The tool's definition cannot be canonicalized for pinning, so no approval was asked")
	}
	pinned, ok := srv.index.pin(name, cur)
	if !ok {
		return ctx, internal(md.Method, normalizeTool(name), fmt.Sprintf("The server has more than %d tools to pin, so no approval was asked", maxPins))
	}
	if pinned != cur {
		d := definitionChanged(normalizeTool(name), name, pinned, cur)
		d.Method = md.Method
		return ctx, d
	}
	return g.o.Approval.Server.WithDefinition(ctx, approvalDefinition(srv, cur)), md
}

// recheckPin reads the tool's definition again after a human answered an
// ask (which may take minutes, while the pin stage checked it before): a
// definition that changed or went away meanwhile refuses the call with
// CodeDefinitionChanged, so an approval given for one definition never
// runs, nor is remembered for, another.
func (g *Guard) recheckPin(c *call) *refusal {
	if g.pins.off || c.digest == "" {
		return nil
	}
	t, err := c.srv.index.current(c.ctx, c.req, c.rawTool)
	if err != nil {
		g.log.Error("gatehouse: reading a tool's definition failed; the call was denied", "error", err)
		return refuse(internal(c.md.Method, c.tool, "The server's tools could not be listed to check the tool's definition, so the call was denied"))
	}
	cur := ""
	if t != nil {
		if cur, err = c.srv.index.digest(t); err != nil {
			cur = ""
		}
	}
	if cur == c.digest {
		return nil
	}
	if cur != "" {
		g.pins.noteDrift(Drift{Tool: c.rawTool, Pinned: c.digest, Current: cur})
	}
	g.log.Error("gatehouse: a tool's definition changed while approval was asked; the call was refused", "tool", clipName(c.rawTool), "pinned", c.digest, "current", cur)
	return refuse(definitionChanged(c.tool, c.rawTool, c.digest, cur))
}

// notListed is the refusal of a call to a pinned tool the server does not
// list to the caller's session, whose definition the pin stage cannot read:
// CodeDefinitionChanged, the server's doing rather than the agent's (it
// does not count against the agent's trust).
func notListed(tool string) policy.Decision {
	return policy.Decision{Outcome: policy.Block, Violation: true, Code: CodeDefinitionChanged, Message: MessageDefinitionChanged,
		Reason: "The tool is pinned but not listed to this client (removed, or hidden from this session), so its definition cannot be checked against its pin; the call was denied",
		Method: policy.MethodToolsCall, Tool: tool}
}

// isPinned reports whether a definition is pinned under the exact name.
func (x *toolIndex) isPinned(name string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.pinned[normalizeTool(name)]
	return ok
}
