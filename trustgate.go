package gatehouse

import (
	"context"
	"strings"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// trustGate applies an agent's trust level (QWED §8.1) on top of the
// policy: a suspended agent is refused; an allowed call whose risk the
// level does not cover becomes an ask. A store error counts as
// trust.Untrusted (fail closed: everything asks).
func (g *Guard) trustGate(ctx context.Context, d policy.Decision, agent, rawTool string) policy.Decision {
	level, err := g.o.Trust.Store.Level(ctx, agent)
	if err != nil {
		g.log.WarnContext(ctx, "gatehouse: trust store failed; treating the agent as untrusted", "error", err)
		level = trust.Untrusted
	}
	if level == trust.Suspended {
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: "The agent is suspended (trust level)", Method: d.Method, Tool: d.Tool}
	}
	if d.Outcome != policy.Allow {
		return d
	}
	risk := d.Risk
	if risk == "" {
		risk = g.classify(rawTool).Risk
	}
	if !level.RequiresConsent(risk) {
		return d
	}
	d.Outcome = policy.Ask
	d.Reason = "Trust level " + level.String() + " needs a human's consent for a " + string(risk) + "-risk action"
	d.Risk = risk
	return d
}

func (g *Guard) classify(tool string) policy.Class {
	if c := g.o.Trust.Classifier; c != nil {
		return c.Classify(tool)
	}
	return policy.Classify(tool)
}

// recordTrust feeds one tools/call outcome to the trust store (QWED §8.3):
// a protected-path attempt is a security violation (-2 levels), a budget
// denial is budget abuse (-1), every other decision counts toward the
// repeated-denials rate. Not with the caller's context: an agent that
// cancels each refused call before it is recorded (a Redis store honours
// the cancellation) would never be degraded. The store bounds the call
// with its own timeout.
func (g *Guard) recordTrust(ctx context.Context, agent string, d policy.Decision, denied bool) {
	if g.o.Trust == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	var err error
	switch {
	case d.Outcome == policy.ProtectedPath:
		_, err = g.o.Trust.Store.Degrade(ctx, agent, trust.ViolationSecurity)
	case strings.HasPrefix(d.FailedRule, "QWED-AGENT-BUDGET"):
		_, err = g.o.Trust.Store.Degrade(ctx, agent, trust.ViolationBudget)
	default:
		_, err = g.o.Trust.Store.Record(ctx, agent, denied)
	}
	if err != nil {
		g.log.WarnContext(ctx, "gatehouse: recording trust failed", "error", err)
	}
}
