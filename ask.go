package gatehouse

import (
	"context"
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// AskRequest is what an [Asker] shows a human.
type AskRequest struct {
	Agent  string          // the agent identity (see Call.Agent)
	Tool   string          // normalized tool name
	Args   map[string]any  // arguments as received; numbers are json.Number
	Reason string          // why the policy asks
	Rule   policy.ToolRule // the AIP tool rule that said ask (zero for ACP rules)
	// For ACP rule lists: the rule ("rules[2]") and its risk level.
	ACPRule string
	Risk    policy.Risk
}

// Answer is a human's answer.
type Answer struct {
	Approved bool
	// Reason, when denied, is added to the error the agent sees.
	Reason string
	// Args, when set on an approval, replaces the arguments (ACP "approved
	// with modifications"). The policy evaluates the modified call again; it
	// runs only if that evaluation allows or asks.
	Args map[string]any
	// RunArgs, when set on an approval, are the arguments the handler
	// receives instead, never logged and never shown to the policy: values
	// a vault injected after the approval (see AskConsent). They must be
	// Args (or the original arguments) with secret references filled in.
	RunArgs map[string]any
}

// Asker asks a human whether a call may run. Ask blocks until an answer, an
// error, or ctx is done (the guard sets the deadline from
// Options.AskTimeout). Any error denies; a deadline error is reported to the
// agent as -32005 "User approval timeout", everything else as -32004.
//
// Implementations must be safe for concurrent use. The consent package
// provides terminal, webhook and Telegram channels.
type Asker interface {
	Ask(ctx context.Context, r AskRequest) (Answer, error)
}

// AskerFunc adapts a function to the Asker interface.
type AskerFunc func(ctx context.Context, r AskRequest) (Answer, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, r AskRequest) (Answer, error) { return f(ctx, r) }

var (
	_ Asker = AskerFunc(nil)
	_ Asker = consentAsker{}
)

// noAsker is the reason for denying an ask without an Asker.
const noAsker = "Tool requires user approval, and no approver is configured: set gatehouse.Options.Asker (for example a consent channel), or register the tool with gatehouse.AddTool to ask through MCP elicitation"

// ask runs the Asker for an ask decision and returns the decision to carry
// out: allowed (possibly with modified args, and with run args for the
// handler only), or denied.
func (g *Guard) ask(ctx context.Context, d policy.Decision, agent string, args map[string]any) (policy.Decision, map[string]any, map[string]any) {
	if g.o.Asker == nil {
		d = d.Denied(false)
		d.Reason = noAsker
		return d, nil, nil
	}
	rule, _ := g.p.Rule(d.Tool)
	timeout := g.o.AskTimeout
	if d.AskTimeout > 0 {
		timeout = d.AskTimeout // an ACP rule's own timeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := g.o.Asker.Ask(actx, AskRequest{Agent: agent, Tool: d.Tool, Args: args, Reason: d.Reason, Rule: rule, ACPRule: d.Rule, Risk: d.Risk})
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(actx.Err(), context.DeadlineExceeded)):
		return d.Denied(true), nil, nil
	case err != nil:
		out := d.Denied(false)
		out.Reason = "Approval could not be obtained; the call was denied"
		g.log.Warn("gatehouse: asker failed", "tool", d.Tool, "error", err)
		return out, nil, nil
	case actx.Err() != nil:
		return d.Denied(errors.Is(actx.Err(), context.DeadlineExceeded)), nil, nil
	case !ans.Approved:
		out := d.Denied(false)
		if ans.Reason != "" {
			out.Reason = fmt.Sprintf("User denied the call: %s", ans.Reason)
		}
		return out, nil, nil
	}
	approved := policy.Decision{Outcome: policy.Allow, Method: d.Method, Tool: d.Tool, Reason: "User approved"}
	if ans.Args != nil {
		// The human changed the call: the changed call must pass the policy too.
		again := g.evaluateCall(policy.MethodToolsCall, d.Tool, ans.Args)
		if again.Outcome != policy.Allow && again.Outcome != policy.Ask {
			again.Reason = "The approved modification is not allowed by policy: " + again.Reason
			return again, nil, nil
		}
		approved.Reason = "User approved with modified arguments"
	}
	return approved, ans.Args, ans.RunArgs
}
