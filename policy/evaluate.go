package policy

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// Request is one JSON-RPC request to authorize.
type Request struct {
	Method string         // JSON-RPC method, e.g. "tools/call", "resources/read"
	Tool   string         // tools/call only, as received (not normalized)
	Args   map[string]any // decoded with json.Decoder.UseNumber: numbers stay json.Number

	// Paths, when set, declares which arguments the tool reads as paths
	// and how (issue 14 item 5); nil means undeclared.
	Paths *PathArgs

	// For ACP rule lists (AIP policies ignore them):
	Server string    // the MCP server's name, for match.server
	Now    time.Time // the clock, for conditions.time_of_day; Evaluate reads no clock itself
}

// MethodToolsCall is the one method whose requests get tool checks.
const MethodToolsCall = "tools/call"

// Evaluate decides r. It is pure: no I/O, no clock, no mutable state, safe
// for concurrent use. Rate limits are the caller's (see [Policy.RateLimit]).
//
// The order is AIP §4.2 then §4.3: method authorization on the normalized
// method; for tools/call, protected paths, the tool rule (block, ask with
// argument validation), the allowlist (a tool rule with action allow counts
// as listed), allow_args, strict args. In monitor mode (§4.4) a BLOCK is
// returned as Allow with Violation set; protected paths stay enforced and
// ask still asks.
//
// A nil *Policy means no policy is loaded: every request is blocked.
func (p *Policy) Evaluate(r Request) Decision {
	method := normalize.Name(r.Method)
	if p == nil {
		d := Decision{Method: method, Violation: true, Code: CodeForbidden, Message: MessageForbidden, Reason: "No policy loaded"}
		if method != MethodToolsCall {
			d.Code, d.Message = CodeMethodNotAllowed, MessageMethodNotAllowed
		} else {
			d.Tool = normalize.Name(r.Tool)
		}
		return d
	}
	md := p.evaluateMethod(method)
	if md.Outcome != Allow || method != MethodToolsCall {
		return md
	}
	var d Decision
	if p.acp != nil {
		d = p.evaluateACP(method, normalize.Name(r.Tool), r)
	} else {
		d = p.evaluateTool(method, normalize.Name(r.Tool), r.Args, r.Paths)
	}
	if md.Violation && d.Outcome == Allow && !d.Violation {
		// Monitor mode let a denied tools/call method through: the tool
		// checks still ran (protected paths stay enforced), and the method
		// violation is what gets logged.
		md.Tool = d.Tool
		return md
	}
	return d
}

// EvaluateMethod is the method authorization of AIP §4.2 alone: the
// decision for any request with this method, before tool checks. Callers
// that enforce rate limits use it to authorize a tools/call's method before
// their limiter, then call Evaluate for the tool. A nil *Policy denies.
func (p *Policy) EvaluateMethod(method string) Decision {
	method = normalize.Name(method)
	if p == nil {
		return Decision{Method: method, Violation: true, Code: CodeMethodNotAllowed, Message: MessageMethodNotAllowed, Reason: "No policy loaded"}
	}
	return p.evaluateMethod(method)
}

// DeniesMethod reports whether denied_methods names method (normalized
// here): an explicit denial, stronger than not being listed.
func (p *Policy) DeniesMethod(method string) bool {
	return p == nil || p.deniedMethods[normalize.Name(method)]
}

func (p *Policy) evaluateMethod(method string) Decision {
	if reason, ok := p.methodAllowed(method); !ok {
		return p.monitor(Decision{
			Violation: true, Code: CodeMethodNotAllowed, Message: MessageMethodNotAllowed,
			Reason: reason, Method: method,
		})
	}
	return Decision{Outcome: Allow, Method: method}
}

func (p *Policy) methodAllowed(method string) (string, bool) {
	if p.deniedMethods[method] {
		return "Method is in denied_methods", false
	}
	if p.allowAllMethods || p.allowedMethods[method] {
		return "", true
	}
	return "Method not in allowed_methods list", false
}

func (p *Policy) evaluateTool(method, tool string, args map[string]any, decl *PathArgs) Decision {
	block := func(reason string) Decision {
		return p.monitor(Decision{
			Violation: true, Code: CodeForbidden, Message: MessageForbidden,
			Reason: reason, Method: method, Tool: tool,
		})
	}
	if tool == "" {
		return block("Tool name is empty")
	}
	// §4.3 step 2: protected paths, enforced in every mode.
	if d, hit := p.checkProtected(method, tool, args, decl); hit {
		return d
	}
	// §4.3 step 3: the tool rule.
	r := p.rules[tool]
	if r != nil {
		switch r.action {
		case ActionBlock:
			return block("Tool is blocked by a tool rule")
		case ActionAsk:
			if d, bad := p.checkRule(r, args, method, tool); bad {
				if d.Outcome == Allow {
					// Monitor mode never turns an ask into a silent allow:
					// the human is still asked, and the violation is kept.
					d.Outcome = Ask
				}
				return d
			}
			return Decision{Outcome: Ask, Method: method, Tool: tool, Reason: "Tool requires user approval"}
		}
	}
	// §4.3 step 4: the allowlist; a rule with action allow counts (DESIGN §3 item 6).
	if r == nil && !p.allowedTools[tool] {
		return block("Tool not in allowed_tools list")
	}
	if r == nil {
		r = p.defaultRule()
	}
	// §4.3 steps 5 and 6.
	if d, bad := p.checkRule(r, args, method, tool); bad {
		return d
	}
	return Decision{Outcome: Allow, Method: method, Tool: tool}
}

// checkRule runs allow_args and strict args; bad is true with the blocking
// decision when one fails.
func (p *Policy) checkRule(r *rule, args map[string]any, method, tool string) (Decision, bool) {
	if arg, pattern, reason, ok := r.checkArgs(args); !ok {
		return p.monitor(Decision{
			Violation: true, Code: CodeForbidden, Message: MessageForbidden, Reason: reason,
			Method: method, Tool: tool, FailedArg: arg, FailedRule: pattern,
		}), true
	}
	if r.strict {
		if arg, found := r.undeclared(args); found {
			return p.monitor(Decision{
				Violation: true, Code: CodeForbidden, Message: MessageForbidden,
				Reason: "Argument " + quote(arg) + " is not declared in allow_args (strict_args)",
				Method: method, Tool: tool, FailedArg: arg,
			}), true
		}
	}
	return Decision{}, false
}

// defaultRule applies to a tool listed in allowed_tools without a tool rule:
// no allow_args, strict when strict_args_default is true (then any argument
// is undeclared).
func (p *Policy) defaultRule() *rule {
	if p.strictDefault {
		return &strictNoArgs
	}
	return &lenientNoArgs
}

var (
	strictNoArgs  = rule{strict: true}
	lenientNoArgs = rule{}
)

// monitor applies AIP §4.4 to a BLOCK decision: forwarded, violation kept.
func (p *Policy) monitor(d Decision) Decision {
	if p.mode == Monitor && d.Outcome == Block {
		d.Outcome, d.Code, d.Message = Allow, 0, ""
	}
	return d
}

// ProtectedArgs is the protected-path check alone (AIP §3.4.5), for
// requests other than tools/call that can carry a path: the URI of
// resources/read and resources/subscribe, the arguments of prompts/get,
// the argument name and value (and context arguments) of
// completion/complete. It returns the ProtectedPath decision and true when
// an argument names or may name a protected path. A nil *Policy reports
// nothing (Evaluate already denies every request then).
func (p *Policy) ProtectedArgs(method string, args map[string]any) (Decision, bool) {
	if p == nil {
		return Decision{}, false
	}
	return p.checkProtected(normalize.Name(method), "", args, nil)
}
