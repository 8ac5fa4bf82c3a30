package policy

import "github.com/gatehouse-dev/gatehouse/normalize"

// Mentions reports whether the policy says anything about tool (normalized
// here): for an AgentPolicy, the tool is in allowed_tools or has a tool
// rule; for ACP rules, some rule's tool glob and category match it
// (whatever its other conditions), so a catch-all rule mentions every
// tool. A tool that is not mentioned is decided by the policy's default
// (not listed, or default_action); callers that decide such tools
// otherwise (the root package's AnnotationDefaults) use this to leave every
// mentioned tool to the policy. A nil *Policy mentions nothing.
func (p *Policy) Mentions(tool string) bool {
	if p == nil {
		return false
	}
	n := normalize.Name(tool)
	if p.acp != nil {
		class := Classify(n)
		for i := range p.acp.rules {
			r := &p.acp.rules[i]
			if (r.tool == "" || globMatch(r.tool, n)) && (r.category == "" || r.category == class.Category) {
				return true
			}
		}
		return false
	}
	return p.allowedTools[n] || p.rules[n] != nil
}
