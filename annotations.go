package gatehouse

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Reasons of the decisions AnnotationDefaults makes.
const (
	annotatedReadOnly = "Tool is not in the policy; its server declares it read-only (readOnlyHint), so it is allowed (gatehouse.Options.AnnotationDefaults)"
	annotatedAsk      = "Tool is not in the policy and its server does not declare it read-only (readOnlyHint), so it requires user approval (gatehouse.Options.AnnotationDefaults)"
	annotatedStrict   = "Tool is not in the policy; its server declares it read-only (readOnlyHint), but the policy's strict_args_default admits no arguments it does not declare, so a call with arguments requires user approval (gatehouse.Options.AnnotationDefaults)"
)

// annotationDefault is, under Options.AnnotationDefaults, the decision for
// a call to a tool the policy does not mention ([policy.Policy.Mentions]):
// allowed when the server's own definition says readOnlyHint: true, asked
// otherwise. MCP's defaults for absent annotations (2025-06-18,
// ToolAnnotations) are readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true, so an unannotated tool is
// treated as destructive and asked; destructiveHint only means something
// when readOnlyHint is false, so a read-only tool is allowed whatever it
// says, unless the policy sets strict_args_default and the call has
// arguments: no allow_args declares them, so it is asked (strict_args
// admits none the policy does not name). Every other decision is the
// policy's: a mentioned tool (listed,
// asked or blocked) follows its rule, and a protected path stays refused.
//
// The annotations are the server's registered definition, read in process
// (the pinned one when pinning is on), never anything the client sent; when
// it cannot be read the policy's own decision stands.
func (g *Guard) annotationDefault(c *call, d policy.Decision) policy.Decision {
	if !g.annotationDecides(c.tool, d) {
		return d
	}
	t, err := g.listed(c)
	if err != nil || t == nil {
		return d
	}
	if readOnly(t) && len(c.args) > 0 && g.p.StrictArgsDefault() {
		return policy.Decision{Outcome: policy.Ask, Method: d.Method, Tool: d.Tool, Reason: annotatedStrict}
	}
	if readOnly(t) {
		return policy.Decision{Outcome: policy.Allow, Method: d.Method, Tool: d.Tool, Reason: annotatedReadOnly}
	}
	return policy.Decision{Outcome: policy.Ask, Method: d.Method, Tool: d.Tool, Reason: annotatedAsk}
}

// annotationDecides reports whether AnnotationDefaults decides a call to
// tool that the policy decided as d: the tool is one the policy does not
// mention, and d is the policy's default for it (not a protected path,
// not an ACP check that runs before the rules, such as an argument
// spelling).
func (g *Guard) annotationDecides(tool string, d policy.Decision) bool {
	if !g.o.AnnotationDefaults || d.Outcome == policy.ProtectedPath || d.Method != policy.MethodToolsCall || g.p.Mentions(tool) {
		return false
	}
	return !g.p.IsACP() || d.Rule == "default_action"
}

func readOnly(t *mcp.Tool) bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint
}

// mayList reports whether tools/list shows t: a tool the policy may allow
// or ask for, and under AnnotationDefaults every tool it does not mention
// (allowed or asked by its annotations).
func (g *Guard) mayList(t *mcp.Tool) bool {
	return g.p.MayAllow(t.Name) || g.o.AnnotationDefaults && !g.p.Mentions(t.Name)
}
