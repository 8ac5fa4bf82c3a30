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
// unknown. Tools without defaults cost the definition read the pin stage
// already made.
func (g *Guard) defaultedPolicy(c *call, req policy.Request, d policy.Decision) policy.Decision {
	if c.srv == nil {
		return d
	}
	t, err := g.listed(c)
	if err != nil {
		return internal(c.md.Method, c.tool, "The server's tools could not be listed to apply the tool's input-schema defaults, so the call was denied")
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
	req.Args = args
	d2 := g.annotationDefault(c, g.p.Evaluate(req))
	switch {
	case d2.Outcome != policy.Allow && d2.Outcome != policy.Ask:
		d2.Reason = "With the tool's input-schema defaults applied (as the handler receives them): " + d2.Reason
		return d2
	case d2.Outcome == policy.Ask && d.Outcome == policy.Allow:
		return d2
	case d2.Violation && !d.Violation: // monitor mode: record what the defaults would have triggered
		return d2
	}
	return d
}
