package policy

import (
	"path"
	"strings"
)

// evaluateACP is ACP §5.2: rules in order, the first match wins, else
// default_action. The policy file (when loaded with Load) stays protected.
func (p *Policy) evaluateACP(method, tool string, r Request) Decision {
	if tool == "" {
		return Decision{Violation: true, Code: CodeForbidden, Message: MessageForbidden, Reason: "Tool name is empty", Method: method}
	}
	if d, hit := p.checkProtected(method, tool, r.Args, r.Paths); hit {
		return d
	}
	if k, declared, ok := p.acp.secondSpelling(r.Args); ok {
		// A rule keyed on "command" would not see "Command", while a
		// handler decoding with encoding/json (case-insensitive) takes it.
		return Decision{Violation: true, Code: CodeForbidden, Message: MessageForbidden, Method: method, Tool: tool, FailedArg: k,
			Reason: "Argument " + quote(k) + " is another spelling of the argument " + quote(declared) + " that a rule matches on"}
	}
	class := Classify(tool)
	var limit *acpRule // a rate-limited allow rule that names the value in another spelling
	var views argViews // the arguments as deny and ask rules also read them, made once per call
	for i := range p.acp.rules {
		rule := &p.acp.rules[i]
		if !rule.matches(tool, class, r, false, &views) {
			if limit == nil && rule.action == ActionAllow && rule.rate.Valid() && (len(rule.args) > 0 || rule.server != "") &&
				rule.matches(tool, class, r, true, &views) && (rule.tod == nil || !r.Now.IsZero() && rule.tod.contains(r.Now)) {
				limit = rule
			}
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
		d := acpDecision(method, tool, rule.name, rule.action, rule.risk(class), rule)
		if rule.server != "" && r.Server == "" && d.Outcome != Allow {
			d.Reason += " (its match.server is taken as matching: the request names no server; set policy.Request.Server, gatehouse.Options.ServerName)"
		}
		return limitedAs(d, limit)
	}
	return limitedAs(acpDecision(method, tool, "default_action", p.acp.defaultAction, class.Risk, nil), limit)
}

// limitedAs applies to an allow the rate limit of an earlier allow rule
// that names the call's value in another spelling ("a@PARTNER.example"
// under "*@partner.example"): an allow rule matches only the exact text,
// so that a spelling never widens what it allows, and without this a
// spelling moved the call past the rule's rate_limit to a later, unlimited
// allow. The call counts in that rule's bucket, as the exact spelling
// would.
func limitedAs(d Decision, limit *acpRule) Decision {
	if limit == nil || d.Outcome != Allow {
		return d
	}
	d.Reason = "Allowed by " + d.Rule + "; rate limited as " + limit.name + ", which names the value in another spelling"
	d.Rule, d.Rate = limit.name, limit.rate
	return d
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

// matches is ACP §5.3, all given criteria at once; time is checked by the
// caller. broad matches arguments as deny and ask rules do, whatever r's
// action.
func (r *acpRule) matches(tool string, class Class, req Request, broad bool, views *argViews) bool {
	if r.tool != "" && !globMatch(r.tool, tool) {
		return false
	}
	if r.category != "" && r.category != class.Category {
		return false
	}
	broad = broad || r.action != ActionAllow
	if r.server != "" && !r.serverMatch(req.Server, broad, views) {
		return false
	}
	for i := range r.args {
		v, ok := req.Args[r.args[i].name]
		if !ok || !r.argValueMatch(&r.args[i], v, broad, views) {
			return false
		}
	}
	return true
}

// serverMatch matches the server's name (the one the human is shown) to
// match.server. An allow rule takes the exact name only; a deny or ask
// rule also takes its folded form ([foldValue]: "Prod-DB", "prod\u200b-db"
// and "ｐｒｏｄ-db" for prod-*), and a request that names no server, which
// cannot be checked against the glob (fail closed).
func (r *acpRule) serverMatch(s string, broad bool, views *argViews) bool {
	if globMatch(r.server, s) {
		return true
	}
	return broad && (s == "" || globMatch(r.serverF, views.serverName(s)))
}

// argValueMatch matches one argument's value. An allow rule matches the
// value's STRING() only (narrow; broad is false). A deny or ask rule
// matches broadly (and so does an allow rule whose rate limit is looked
// for: limitedAs), so
// that no spelling a handler reads as the value it names slips past it:
// also the value's folded form ([foldValue]: letter case, NFKC, invisible
// runes, surrounding white space, percent escapes), any string in an
// array, and a value it cannot match at all (no JSON representation, over
// MaxArgLen, nested too deeply), which fails closed.
func (r *acpRule) argValueMatch(a *acpArg, v any, broad bool, views *argViews) bool {
	s, err := stringify(v)
	if err == nil && len(s) <= MaxArgLen && r.argMatch(a.glob, s) {
		return true
	}
	if !broad {
		return false
	}
	return err != nil || len(s) > MaxArgLen || a.broadMatch(views.get(a.name, v))
}

// argMatch matches one argument glob. A glob with a '/' is a path glob:
// '*' stays within one component, '**' crosses components, and the value
// is matched after "." and ".." are resolved, so "/srv/data/*" does not
// admit "/srv/data/../../home/u/.ssh/id_rsa". An allow rule matches only
// that way (narrow), and not at all a value whose spelling a handler may
// decode further (percent escapes, backslashes, non-ASCII); a deny or ask
// rule matches either way (broad), so no spelling slips past it.
func (r *acpRule) argMatch(glob, s string) bool {
	if !strings.Contains(glob, "/") {
		return globMatch(glob, s)
	}
	pathOK := false
	if !strings.ContainsAny(s, "%\\") && isASCIIString(s) {
		pathOK = pathGlobMatch(glob, path.Clean(s))
	}
	if r.action == ActionAllow {
		return pathOK
	}
	return pathOK || globMatch(glob, s) || globMatch(glob, path.Clean(s))
}

// pathGlobMatch matches component by component: "**" matches any number
// of components (none included), other components match as globMatch
// does within one component.
func pathGlobMatch(glob, s string) bool {
	return matchComponents(strings.Split(glob, "/"), strings.Split(s, "/"))
}

func matchComponents(g, s []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(s); i++ {
				if matchComponents(g[1:], s[i:]) {
					return true
				}
			}
			return false
		}
		if len(s) == 0 || !globMatch(g[0], s[0]) {
			return false
		}
		g, s = g[1:], s[1:]
	}
	return len(s) == 0
}

// secondSpelling returns a request argument that equals, under case
// folding, an argument name some rule matches on without being it.
func (a *acpPolicy) secondSpelling(args map[string]any) (arg, declared string, found bool) {
	for k := range args {
		for i := range a.rules {
			for _, ra := range a.rules[i].args {
				if k != ra.name && strings.EqualFold(k, ra.name) {
					return k, ra.name, true
				}
			}
		}
	}
	return "", "", false
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
