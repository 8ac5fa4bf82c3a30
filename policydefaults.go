package gatehouse

import (
	"github.com/gatehouse-dev/gatehouse/policy"
)

// defaultedPolicy evaluates the policy on the arguments the handler will
// receive when they differ from what the client sent: go-sdk's typed tools
// (mcp.AddTool) fill in the input schema's defaults before the handler
// runs, so a call that leaves out an argument ({} to a deploy tool whose
// env defaults to "prod", a path that defaults to a protected file) runs
// with a value the policy never saw. d is the decision on the arguments as
// sent; the result is the stricter of d and the decision on the defaulted
// arguments (a refusal there refuses, an ask there asks). A schema whose
// defaults cannot be applied refuses: the arguments that would run are
// unknown. Tools without defaults cost one read of the definition, which
// the pin stage then reuses. Numbers are decided on as a typed handler
// receives them too (typedNumbers).
func (g *Guard) defaultedPolicy(c *call, req policy.Request, d policy.Decision) policy.Decision {
	if typed, ok := typedNumbers(req.Args); ok {
		r := req
		r.Args = typed
		d = stricter(d, g.annotationDefault(c, g.p.Evaluate(r)), "With the numbers as a typed handler receives them (float64): ")
		if d.Outcome != policy.Allow && d.Outcome != policy.Ask {
			return d
		}
	}
	if c.srv == nil {
		return d
	}
	t, err := g.listed(c)
	if err != nil {
		return internal(c.md.Method, c.tool, "The server's tools could not be listed to apply the tool's input-schema defaults, so the call was denied")
	}
	if t == nil {
		if d2, _, ok := c.srv.index.check(c.ctx, c.req, c.rawTool, c.tool); !ok {
			return d2 // another spelling of a listed tool: the agent's mistake (-32602), as the dispatch stage says
		}
		return g.unlisted(c) // before anyone is asked or anything is spent
	}
	full, err := withSchemaDefaults(t, c.rawArgs)
	if err != nil {
		return internal(c.md.Method, c.tool, "The tool's input-schema defaults cannot be applied, so the arguments it would run with are unknown and the call was denied")
	}
	if full == nil {
		return d
	}
	args, err := decodeArgs(full)
	if err != nil {
		return internal(c.md.Method, c.tool, "The arguments with the tool's input-schema defaults cannot be read, so the call was denied")
	}
	if typed, ok := typedNumbers(args); ok {
		args = typed // a default's number reaches a typed handler as float64 too
	}
	req.Args = args
	return stricter(d, g.annotationDefault(c, g.p.Evaluate(req)), "With the tool's input-schema defaults applied (as the handler receives them): ")
}

// stricter is the stricter of d, the decision on the arguments as sent,
// and d2, the decision on them as the handler receives them (why says
// how): a refusal there refuses, an ask there asks.
func stricter(d, d2 policy.Decision, why string) policy.Decision {
	switch {
	case d2.Outcome != policy.Allow && d2.Outcome != policy.Ask:
		d2.Reason = why + d2.Reason
		return d2
	case d2.Outcome == policy.Ask && d.Outcome == policy.Allow:
		return d2
	case d2.Violation && !d.Violation && d2.Outcome == d.Outcome: // monitor mode: record what the defaults would have triggered, never an ask turned into an allow
		return d2
	}
	return d
}

// unlisted refuses a call to a tool missing from the session's
// tools/list: no such tool (go-sdk would answer "unknown tool"), or one
// the server hides from this session's listing yet dispatches, whose
// input-schema defaults, the arguments it would run with, are unknown to
// the policy. The policy stage refuses it (defaultedPolicy), before any
// ask or charge. A pinned tool is the pin's refusal (-32013: the server's
// doing, not the agent's).
func (g *Guard) unlisted(c *call) policy.Decision {
	return g.unlistedTool(c.srv, c.md.Method, c.rawTool)
}

// unlistedTool is unlisted for a tool named raw on srv.
func (g *Guard) unlistedTool(srv *served, method, raw string) policy.Decision {
	if !g.pins.off && srv.index.isPinned(raw) {
		return notListed(normalizeTool(raw))
	}
	return internal(method, normalizeTool(raw), "The tool is not in the server's tools/list for this session, so the arguments it would run with (its input-schema defaults) are unknown and the call was denied")
}
