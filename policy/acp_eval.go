package policy

// evaluateACP is ACP §5.2: rules in order, the first match wins, else
// default_action. The policy file (when loaded with Load) stays protected.
func (p *Policy) evaluateACP(method, tool string, r Request) Decision {
	if tool == "" {
		return Decision{Violation: true, Code: CodeForbidden, Message: MessageForbidden, Reason: "Tool name is empty", Method: method}
	}
	if d, hit := p.checkProtected(method, tool, r.Args, r.Paths); hit {
		return d
	}
	class := Classify(tool)
	for i := range p.acp.rules {
		rule := &p.acp.rules[i]
		if !rule.matches(tool, class, r) {
			continue
		}
		if rule.tod != nil {
			if r.Now.IsZero() {
				return Decision{Violation: true, Code: CodeForbidden, Message: MessageForbidden, Method: method, Tool: tool, Rule: rule.name,
					Reason: "Rule " + rule.name + " has a time_of_day condition and the request carries no time (set policy.Request.Now)"}
			}
			if !rule.tod.contains(r.Now) {
				continue
			}
		}
		return acpDecision(method, tool, rule.name, rule.action, rule.risk(class), rule)
	}
	return acpDecision(method, tool, "default_action", p.acp.defaultAction, class.Risk, nil)
}

func (r *acpRule) risk(c Class) Risk {
	if r.level != "" {
		return r.level
	}
	return c.Risk
}

func acpDecision(method, tool, name string, a Action, risk Risk, r *acpRule) Decision {
	d := Decision{Method: method, Tool: tool, Rule: name, Risk: risk}
	if r != nil {
		d.AskTimeout, d.Rate = r.timeout, r.rate
	}
	switch a {
	case ActionAllow:
		d.Outcome = Allow
	case ActionAsk:
		d.Outcome, d.Reason = Ask, "Tool requires user approval ("+name+")"
	default:
		d.Outcome, d.Violation, d.Code, d.Message = Block, true, CodeForbidden, MessageForbidden
		d.Reason = "Denied by " + name
	}
	return d
}

// matches is ACP §5.3, all given criteria at once; time is checked by the caller.
func (r *acpRule) matches(tool string, class Class, req Request) bool {
	if r.tool != "" && !globMatch(r.tool, tool) {
		return false
	}
	if r.category != "" && r.category != class.Category {
		return false
	}
	if r.server != "" && !globMatch(r.server, req.Server) {
		return false
	}
	for _, a := range r.args {
		v, ok := req.Args[a.name]
		if !ok {
			return false
		}
		s, err := stringify(v)
		if err != nil || len(s) > MaxArgLen || !globMatch(a.glob, s) {
			return false
		}
	}
	return true
}

// mayAllow reports whether some call of tool could be allowed or asked for.
func (a *acpPolicy) mayAllow(tool string) bool {
	class := Classify(tool)
	for i := range a.rules {
		r := &a.rules[i]
		if r.tool != "" && !globMatch(r.tool, tool) || r.category != "" && r.category != class.Category {
			continue
		}
		if r.action != ActionBlock {
			return true
		}
		if r.server == "" && len(r.args) == 0 && r.tod == nil {
			return false // an unconditional deny for this tool comes first
		}
	}
	return a.defaultAction != ActionBlock
}
