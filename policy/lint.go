package policy

import (
	"fmt"
	"slices"
	"strings"
)

// lintLines are the source lines of the fields [Policy.Lint] reports on.
type lintLines struct {
	mode, methods, defaultAction int
}

// Warning is something [Policy.Lint] finds valid but probably not what
// the author meant.
type Warning struct {
	Line int    // 1-based line in the policy source; 0 when unknown
	Code string // stable identifier, e.g. "monitor-mode"
	Msg  string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("line %d: %s (%s)", w.Line, w.Msg, w.Code)
	}
	return fmt.Sprintf("%s (%s)", w.Msg, w.Code)
}

// The warning codes of [Policy.Lint].
const (
	WarnMonitorMode       = "monitor-mode"        // spec.mode: monitor (AIP §4.4)
	WarnAskWithoutChannel = "ask-without-channel" // an ask rule, and LintOptions.Channels is empty
	WarnAllMethods        = "all-methods"         // allowed_methods has "*"
	WarnDefaultAllow      = "default-allow"       // ACP default_action: allow
)

// LintOptions describe the deployment a policy is checked for. nil means
// nothing is known about it.
type LintOptions struct {
	// Channels names the ways the server answers an ask (passkey approval,
	// elicitation, a consent channel such as "terminal" or "webhook").
	// Empty: none, so every ask rule is reported, since the guard denies
	// an ask it has no way to put to a human.
	Channels []string
}

// Lint reports what is valid but probably wrong in p, ordered by line:
// monitor mode (blocked calls are forwarded), ask rules when no channel
// can answer them, allowed_methods "*", and an ACP default_action allow.
// It never changes what Evaluate decides.
func (p *Policy) Lint(opts *LintOptions) []Warning {
	if p == nil {
		return nil
	}
	var ws []Warning
	if p.mode == Monitor {
		ws = append(ws, Warning{p.lines.mode, WarnMonitorMode,
			"spec.mode is monitor: calls the policy blocks are forwarded and only logged as ALLOW_MONITOR (AIP §4.4)"})
	}
	if p.allowAllMethods {
		ws = append(ws, Warning{p.lines.methods, WarnAllMethods,
			`allowed_methods has "*": every JSON-RPC method except denied_methods is allowed, including ones added to MCP later`})
	}
	noChannel := opts == nil || len(opts.Channels) == 0
	ask := func(line int, what string) {
		if noChannel {
			ws = append(ws, Warning{line, WarnAskWithoutChannel, what +
				" asks a human, but no ask channel is configured: without passkey approval, elicitation or a consent channel every such call is denied"})
		}
	}
	for _, name := range sortedKeys(p.rules) {
		if r := p.rules[name]; r.action == ActionAsk {
			ask(r.line, fmt.Sprintf("tool rule %q", r.tool))
		}
	}
	if a := p.acp; a != nil {
		for _, r := range a.rules {
			if r.action == ActionAsk {
				ask(r.line, r.name)
			}
		}
		switch a.defaultAction {
		case ActionAsk:
			ask(p.lines.defaultAction, "default_action")
		case ActionAllow:
			ws = append(ws, Warning{p.lines.defaultAction, WarnDefaultAllow,
				"default_action is allow: every tool no rule matches runs without asking"})
		}
	}
	slices.SortStableFunc(ws, func(a, b Warning) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return strings.Compare(a.Code, b.Code)
	})
	return ws
}
