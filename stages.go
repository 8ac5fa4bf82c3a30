package gatehouse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/internal/argjson"
	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

func normalizeTool(raw string) string { return normalize.Name(raw) }

// decodeStage decodes the arguments with UseNumber; anything but one JSON
// object is -32602 and never forwarded.
func (g *Guard) decodeStage(c *call) *refusal {
	if n := len(c.rawArgs); n > g.o.MaxArgumentBytes {
		return refuse(invalidParams(c.tool, fmt.Sprintf("The arguments are %d bytes, over the server's limit of %d bytes (gatehouse.Options.MaxArgumentBytes); send less at once", n, g.o.MaxArgumentBytes)))
	}
	args, err := decodeArgs(c.rawArgs)
	if err != nil {
		return refuse(invalidParams(c.tool, err.Error()))
	}
	c.args = args
	return nil
}

// dispatchStage makes sure the policy authorizes the tool go-sdk will
// dispatch: no other registered tool shares the normalized name.
func (g *Guard) dispatchStage(c *call) *refusal {
	d, known, ok := c.srv.index.check(c.ctx, c.req, c.rawTool, c.tool)
	c.checked, c.known = true, known
	if !ok {
		g.log.ErrorContext(c.ctx, "gatehouse: tools whose names normalize to the same name are registered; calls to them are denied", "tool", c.tool)
		return refuse(d)
	}
	return nil
}

// inflightStage takes a slot of the in-flight caps: load beyond them is
// refused at once, as a rate limit with the cap's name, never queued.
func (g *Guard) inflightStage(c *call) *refusal {
	release, err := g.flight.Acquire(c.agent, c.tool)
	if err != nil {
		return refuse(capacityDecision(c.md.Method, c.tool, err))
	}
	c.release = release
	return nil
}

// capacityDecision is a refusal for load: -32002 with the cap's reason.
func capacityDecision(method, tool string, err error) policy.Decision {
	d := policy.RateLimitedDecision(method, tool)
	d.Reason = err.Error()
	return d
}

// rateStage takes a token of the AIP rule's rate limit, per agent and tool.
func (g *Guard) rateStage(c *call) *refusal {
	r, ok := g.p.RateLimit(c.tool)
	if !ok {
		return nil
	}
	return g.rateLimited(c, c.tool, ratelimit.Key("gatehouse", "rate", c.agent, c.tool), r)
}

// policyStage evaluates the policy (AIP §4.3, ACP rules), then an ACP
// rule's own rate limit (ACP §5.2: after matching).
func (g *Guard) policyStage(c *call) *refusal {
	d := g.policyDecision(c)
	if d.Outcome != policy.Allow && d.Outcome != policy.Ask {
		return refuse(d)
	}
	if c.md.Violation && !d.Violation {
		d.Violation, d.Reason = true, c.md.Reason // a monitored method denial
	}
	c.d = d
	if d.Rate.Valid() {
		return g.rateLimited(c, "acp:"+d.Rule, ratelimit.Key("gatehouse", "acp", d.Rule, c.agent, c.tool), d.Rate)
	}
	return nil
}

func (g *Guard) trustStage(c *call) *refusal {
	if c.d = g.trustGate(c.ctx, c.d, c.agent, c.rawTool); c.d.Outcome == policy.Block {
		return refuse(c.d)
	}
	return nil
}

// conversationStage reserves the call's conversation step (QWED §9); the
// pipeline's undo releases it unless the call commits.
func (g *Guard) conversationStage(c *call) *refusal {
	convID, step, err := ratelimit.ParseContext(c.req.Params.Meta)
	if err == nil {
		c.resv, err = g.o.Limits.Conversations.Begin(c.ctx, ratelimit.Action{Agent: c.agent, ConversationID: convID, Step: step, Tool: c.tool, Args: c.args})
	}
	if err != nil {
		return refuse(limitDecision(c.md.Method, c.tool, err))
	}
	return nil
}

// budgetStage checks the budget before anyone is asked; the charge comes
// with the commit.
func (g *Guard) budgetStage(c *call) *refusal {
	if err := g.o.Limits.Budget.Check(c.ctx, c.agent, g.usage(c.info())); err != nil {
		return refuse(limitDecision(c.md.Method, c.tool, err))
	}
	return nil
}

// policyDecision is the policy's decision on the call: on the arguments
// as sent and as the handler receives them, with AnnotationDefaults; a
// tool missing from the session's listing is refused (unlisted). It
// spends and records nothing, so the scope stage can ask it too.
func (g *Guard) policyDecision(c *call) policy.Decision {
	req := policy.Request{Method: c.method, Tool: c.rawTool, Args: c.args, Server: g.serverName(c), Now: g.now()}
	if pa, ok := g.o.PathArgs[c.rawTool]; ok {
		req.Paths = &pa
	}
	d := g.annotationDefault(c, g.p.Evaluate(req))
	if d.Outcome == policy.Allow || d.Outcome == policy.Ask {
		d = g.defaultedPolicy(c, req, d)
	}
	return d
}

// evaluateCall is the policy decision on a tool call to the server named
// server (serverName), with the guard's clock.
func (g *Guard) evaluateCall(server, method, tool string, args map[string]any) policy.Decision {
	return g.p.Evaluate(policy.Request{Method: method, Tool: tool, Args: args, Server: server, Now: g.now()})
}

// rateLimited takes a token for key from the limiter of rate r (one limiter
// per limiterID).
func (g *Guard) rateLimited(c *call, limiterID, key string, r ratelimit.Rate) *refusal {
	lim, err := g.limiter(limiterID, r)
	if err != nil {
		return refuse(internal(c.md.Method, c.tool, "The rate limiter is misconfigured, so the call was denied"))
	}
	res, err := lim.Allow(c.ctx, key)
	if errors.Is(err, ratelimit.ErrCapacity) {
		return refuse(capacityDecision(c.md.Method, c.tool, err))
	}
	if err != nil {
		g.log.ErrorContext(c.ctx, "gatehouse: rate limiter failed", "tool", c.tool, "error", err)
		return refuse(internal(c.md.Method, c.tool, "The rate limiter is unavailable, so the call was denied"))
	}
	if !res.Allowed {
		return refuse(policy.RateLimitedDecision(c.md.Method, c.tool))
	}
	return nil
}

// limitDecision turns a budget or conversation-guard error into a denial
// whose reason carries the stable QWED code.
func limitDecision(method, tool string, err error) policy.Decision {
	var be *ratelimit.BudgetError
	var le *ratelimit.Error
	switch {
	case errors.Is(err, ratelimit.ErrCapacity):
		return capacityDecision(method, tool, err)
	case errors.As(err, &be):
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: be.Error(), Method: method, Tool: tool, FailedRule: string(be.Code)}
	case errors.As(err, &le):
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: le.Error(), Method: method, Tool: tool, FailedRule: string(le.Code)}
	case errors.Is(err, ratelimit.ErrReservationLost):
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: "The conversation step expired before the call was decided; retry the step", Method: method, Tool: tool}
	}
	return internal(method, tool, "The budget or conversation store is unavailable, so the call was denied")
}

// decodeArgs decodes tool arguments as encoding/json's Decoder with
// UseNumber would (internal/argjson, without its cost). Absent or null
// arguments are an empty object; anything but one JSON object is an error,
// and so is an object, at any depth, with two members of one name or of
// names equal under case folding: the policy, the audit log, a prompt and
// the handler could each read another member (DESIGN §3 item 12; fault:
// {"env":"prod","env":"staging"} was checked and shown as "staging", and a
// handler reading the first member ran "prod").
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]any{}, nil
	}
	if t[0] != '{' {
		return nil, errors.New("Tool arguments must be a JSON object")
	}
	m, err := argjson.DecodeStrict(t)
	switch {
	case errors.Is(err, argjson.ErrDuplicateName):
		return nil, errors.New("Tool arguments have an object with two members of the same name, or of names that differ only in letter case (such as \"path\" and \"PATH\"); readers disagree on which one is meant, so the call cannot be checked or approved. Send each name once")
	case errors.Is(err, argjson.ErrTooDeep):
		return nil, fmt.Errorf("Tool arguments nest deeper than %d levels", argjson.MaxDepth)
	case errors.Is(err, argjson.ErrTrailing):
		return nil, errors.New("Tool arguments have trailing data after the JSON object")
	case err != nil:
		return nil, errors.New("Tool arguments are not valid JSON")
	}
	return m, nil
}
