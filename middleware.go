package gatehouse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/elicitation"
	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Call describes one tools/call as the guard saw it, for Options.Usage.
type Call struct {
	Agent string
	Tool  string         // normalized
	Args  map[string]any // numbers are json.Number
}

// serve is the middleware body: every request, in the order of issue 6 /
// AIP §4: recover, method authorization, then per method.
func (g *Guard) serve(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (res mcp.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			// The panic value may hold anything; log its type and the stack only.
			g.log.Error("gatehouse: recovered a panic; the request was denied", "method", method, "panic_type", fmt.Sprintf("%T", r), "stack", string(debug.Stack()))
			tool := ""
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil {
				tool = normalize.Name(call.Params.Name)
			}
			d := internal(normalize.Name(method), tool, "The server failed while handling this request; it was denied")
			g.auditDecision(context.WithoutCancel(ctx), d, identity(req, g.o.DefaultAgent), nil)
			res, err = nil, rpcError(d, "")
		}
	}()
	md := g.p.EvaluateMethod(method)
	if g.o.Approval != nil && approvalMethods[md.Method] {
		ctx, md = g.authorizeApprovalMethod(ctx, md, identity(req, g.o.DefaultAgent))
		if md.Outcome == policy.Allow {
			md = g.precheckChallenge(md, req)
		}
	}
	if md.Outcome != policy.Allow {
		return g.deny(ctx, md, req, "", nil)
	}
	if md.Method == policy.MethodToolsCall {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return g.deny(ctx, invalidParams("", "tools/call without params"), req, "", nil)
		}
		return g.toolCall(ctx, method, call, md, next)
	}
	agent := identity(req, g.o.DefaultAgent)
	if d, hit := g.p.ProtectedArgs(md.Method, fileArgs(req)); hit {
		return g.deny(ctx, d, req, "", nil)
	}
	if err := g.auditDecision(ctx, md, agent, nil); err != nil {
		return nil, rpcError(internal(md.Method, "", auditDown), "")
	}
	res, err = next(ctx, method, req)
	if err != nil {
		return nil, g.redactError(ctx, md.Method, "", agent, err)
	}
	if res == nil {
		return res, err
	}
	if g.o.Approval != nil {
		g.addApprovalCapability(res)
	}
	return g.filterResult(ctx, md.Method, "", agent, res)
}

const auditDown = "The audit log could not record this decision, so the request was denied"

// deny audits a denial and returns it in the configured form.
func (g *Guard) deny(ctx context.Context, d policy.Decision, req mcp.Request, rawTool string, rawArgs json.RawMessage) (mcp.Result, error) {
	agent := identity(req, g.o.DefaultAgent)
	if err := g.auditDecision(ctx, d, agent, rawArgs); err != nil {
		g.log.Error("gatehouse: audit write failed", "error", err)
	}
	if d.Method == policy.MethodToolsCall && d.Code != CodeInternalError {
		g.recordTrust(ctx, agent, d, true)
	}
	if g.o.DenyAsToolResult && d.Method == policy.MethodToolsCall {
		return toolError(d), nil
	}
	return nil, rpcError(d, rawTool)
}

// evaluateCall is the policy decision on a tool call, with the guard's
// server name and clock.
func (g *Guard) evaluateCall(method, tool string, args map[string]any) policy.Decision {
	return g.p.Evaluate(policy.Request{Method: method, Tool: tool, Args: args, Server: g.o.ServerName, Now: g.now()})
}

// toolCall is AIP §4.3 and the guard's extra checks, in order: arguments
// decoded (UseNumber), the rule's rate limit (keyed per agent and tool), the
// policy, the conversation guard, the budget check, asking, the budget
// charge, the handler, DLP on the result.
func (g *Guard) toolCall(ctx context.Context, method string, call *mcp.CallToolRequest, md policy.Decision, next mcp.MethodHandler) (mcp.Result, error) {
	rawTool := call.Params.Name
	tool := normalize.Name(rawTool)
	agent := identity(call, g.o.DefaultAgent)
	rawArgs := call.Params.Arguments
	args, err := decodeArgs(rawArgs)
	if err != nil {
		return g.deny(ctx, invalidParams(tool, err.Error()), call, rawTool, nil)
	}
	if r, ok := g.p.RateLimit(tool); ok {
		if denied, ok := g.rateLimited(ctx, md.Method, tool, tool, ratelimit.Key("gatehouse", "rate", agent, tool), r); !ok {
			return g.deny(ctx, denied, call, rawTool, rawArgs)
		}
	}
	d := g.evaluateCall(method, rawTool, args)
	if d.Outcome != policy.Allow && d.Outcome != policy.Ask {
		return g.deny(ctx, d, call, rawTool, rawArgs)
	}
	if d.Rate.Valid() {
		// An ACP rule's rate_limit, checked after rule matching (ACP §5.2).
		if denied, ok := g.rateLimited(ctx, md.Method, tool, "acp:"+d.Rule, ratelimit.Key("gatehouse", "acp", d.Rule, agent, tool), d.Rate); !ok {
			return g.deny(ctx, denied, call, rawTool, rawArgs)
		}
	}
	if md.Violation && !d.Violation {
		d.Violation, d.Reason = true, md.Reason // a monitored method denial
	}
	if g.o.Trust != nil {
		if d = g.trustGate(ctx, d, agent, rawTool); d.Outcome == policy.Block {
			return g.deny(ctx, d, call, rawTool, rawArgs)
		}
	}

	c := Call{Agent: agent, Tool: tool, Args: args}
	_, viaElicit := g.elicit.Load(tool)
	viaElicit = viaElicit && d.Outcome == policy.Ask
	var resv *ratelimit.Reservation
	// An elicitation retry that carries this call's signed state continues
	// the step its first round committed (as pending); any other request
	// goes through the conversation guard.
	if g.o.Conversations != nil && !(viaElicit && g.stateMatches(call, tool, agent)) {
		convID, step, err := ratelimit.ParseContext(call.Params.Meta)
		if err == nil {
			resv, err = g.o.Conversations.Begin(ctx, ratelimit.Action{Agent: agent, ConversationID: convID, Step: step, Tool: tool, Args: args})
		}
		if err != nil {
			return g.deny(ctx, limitDecision(md.Method, tool, err), call, rawTool, rawArgs)
		}
	}
	release := func() {
		if resv != nil {
			if err := resv.Release(context.WithoutCancel(ctx)); err != nil {
				g.log.Warn("gatehouse: releasing a conversation step failed", "error", err)
			}
		}
	}
	if g.o.Budget != nil {
		if err := g.o.Budget.Check(ctx, agent, g.usage(c)); err != nil {
			release()
			return g.deny(ctx, limitDecision(md.Method, tool, err), call, rawTool, rawArgs)
		}
	}
	needsApproval := g.requiresApproval(rawTool, tool)
	if d.Outcome == policy.Ask && !viaElicit && !needsApproval {
		var newArgs, runArgs map[string]any
		d, newArgs, runArgs = g.ask(elicitation.WithRequest(ctx, call), d, agent, args)
		if d.Outcome != policy.Allow {
			release()
			return g.deny(ctx, d, call, rawTool, rawArgs)
		}
		if newArgs != nil {
			raw, err := json.Marshal(newArgs)
			if err != nil {
				release()
				return g.deny(ctx, invalidParams(tool, "The approved arguments cannot be encoded"), call, rawTool, rawArgs)
			}
			call = withArguments(call, raw)
			args, rawArgs, c.Args = newArgs, raw, newArgs
		}
		if runArgs != nil {
			// Secrets for the handler only: the audit below keeps rawArgs.
			raw, err := json.Marshal(runArgs)
			if err != nil {
				release()
				return g.deny(ctx, internal(md.Method, tool, "The approved arguments cannot be prepared"), call, rawTool, rawArgs)
			}
			call = withArguments(call, raw)
		}
	}
	if needsApproval {
		// SEP-2672: the passkey evidence in params._meta, verified after
		// every check that denies by policy, limit or budget (Budget.Check,
		// the conversation reservation above), so none of those burns a
		// valid challenge. Only the atomic budget charge, the reservation
		// commit and the audit write come after; they fail only when a
		// concurrent call took the last unit of budget or a store or the
		// audit log fails, and then the call is denied with the approval
		// spent (the user approves again). It also answers an ask rule.
		var denied policy.Decision
		var err error
		if ctx, denied, err = g.verifyApproval(ctx, d, call, agent); err != nil {
			release()
			if aerr := g.auditDecision(ctx, denied, agent, rawArgs); aerr != nil {
				g.log.Error("gatehouse: audit write failed", "error", aerr)
			}
			return nil, err
		}
		d = denied
	}
	// Only approved calls are charged (QWED §9.5); AddTool charges an
	// elicited call once the user has approved it.
	if g.o.Budget != nil && !viaElicit {
		if err := g.o.Budget.Charge(ctx, agent, g.usage(c)); err != nil {
			release()
			return g.deny(ctx, limitDecision(md.Method, tool, err), call, rawTool, rawArgs)
		}
	}
	if resv != nil {
		if err := resv.Commit(ctx); err != nil {
			return g.deny(ctx, limitDecision(md.Method, tool, err), call, rawTool, rawArgs)
		}
	}
	if err := g.auditDecision(ctx, d, agent, rawArgs); err != nil {
		return g.deny(ctx, internal(md.Method, tool, auditDown), call, rawTool, nil)
	}
	g.recordTrust(ctx, agent, d, false)
	ctx = withDecision(ctx, decided{d: d, call: c})
	res, err := next(ctx, method, call)
	if err != nil {
		return nil, g.redactError(ctx, md.Method, tool, agent, err)
	}
	if res == nil {
		return res, err
	}
	return g.filterResult(ctx, md.Method, tool, agent, res)
}

// rateLimited takes a token for key from the limiter of rate r (one limiter
// per limiterID); ok is false with the denial when the call must not go on.
func (g *Guard) rateLimited(ctx context.Context, method, tool, limiterID, key string, r ratelimit.Rate) (policy.Decision, bool) {
	lim, err := g.limiter(limiterID, r)
	if err != nil {
		return internal(method, tool, "The rate limiter is misconfigured, so the call was denied"), false
	}
	res, err := lim.Allow(ctx, key)
	if err != nil {
		g.log.Error("gatehouse: rate limiter failed", "tool", tool, "error", err)
		return internal(method, tool, "The rate limiter is unavailable, so the call was denied"), false
	}
	if !res.Allowed {
		return policy.RateLimitedDecision(method, tool), false
	}
	return policy.Decision{}, true
}

func (g *Guard) usage(c Call) ratelimit.Usage {
	if g.o.Usage == nil {
		return ratelimit.Usage{}
	}
	return g.o.Usage(c)
}

// limitDecision turns a budget or conversation-guard error into a denial
// whose reason carries the stable QWED code.
func limitDecision(method, tool string, err error) policy.Decision {
	var be *ratelimit.BudgetError
	var le *ratelimit.Error
	switch {
	case errors.As(err, &be):
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: be.Error(), Method: method, Tool: tool, FailedRule: string(be.Code)}
	case errors.As(err, &le):
		return policy.Decision{Outcome: policy.Block, Violation: true, Code: policy.CodeForbidden, Message: policy.MessageForbidden,
			Reason: le.Error(), Method: method, Tool: tool, FailedRule: string(le.Code)}
	}
	return internal(method, tool, "The budget or conversation store is unavailable, so the call was denied")
}

// fileArgs are the arguments of requests other than tools/call that can
// name files, for the protected-path check: the URI of resources/read and
// resources/subscribe, the arguments of prompts/get.
func fileArgs(req mcp.Request) map[string]any {
	switch r := req.(type) {
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			return map[string]any{"uri": r.Params.URI}
		}
	case *mcp.SubscribeRequest:
		if r.Params != nil {
			return map[string]any{"uri": r.Params.URI}
		}
	case *mcp.GetPromptRequest:
		if r.Params != nil {
			args := make(map[string]any, len(r.Params.Arguments))
			for k, v := range r.Params.Arguments {
				args[k] = v
			}
			return args
		}
	}
	return nil
}

// decodeArgs decodes tool arguments with UseNumber. Absent or null
// arguments are an empty object; anything but one JSON object is an error.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]any{}, nil
	}
	if t[0] != '{' {
		return nil, errors.New("Tool arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, errors.New("Tool arguments are not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("Tool arguments have trailing data after the JSON object")
	}
	return m, nil
}

// withArguments returns a copy of call with new raw arguments; the
// client's request is not changed.
func withArguments(call *mcp.CallToolRequest, raw json.RawMessage) *mcp.CallToolRequest {
	c := *call
	p := *call.Params
	p.Arguments = raw
	c.Params = &p
	return &c
}

type decisionKey struct{}

// decided is what the middleware hands the handler through the context.
type decided struct {
	d    policy.Decision
	call Call
}

func withDecision(ctx context.Context, d decided) context.Context {
	return context.WithValue(ctx, decisionKey{}, d)
}

func decidedFrom(ctx context.Context) (decided, bool) {
	d, ok := ctx.Value(decisionKey{}).(decided)
	return d, ok
}

// DecisionFrom returns the guard's decision for the tools/call being
// handled, for tool handlers that want to log or show it. ok is false when
// the request did not pass through a Guard.
func DecisionFrom(ctx context.Context) (policy.Decision, bool) {
	d, ok := decidedFrom(ctx)
	return d.d, ok
}
