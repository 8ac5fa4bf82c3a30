package gatehouse

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Call describes one tools/call as the guard saw it, for LimitOptions.Usage.
type Call struct {
	Agent string
	Tool  string         // normalized
	Args  map[string]any // numbers are json.Number
}

// call is one tools/call on its way through the pipeline: computed once,
// passed to every stage, and handed to the AddTool wrapper through the
// context.
type call struct {
	ctx     context.Context
	method  string // as received
	md      methodDecision
	req     *mcp.CallToolRequest // what the handler receives (approved or injected arguments)
	srv     *served
	rawTool string // as received: the name go-sdk dispatches
	tool    string // normalized
	agent   string
	rawArgs json.RawMessage // as received or as approved: what is audited
	args    map[string]any
	d       policy.Decision

	resv      *ratelimit.Reservation     // the conversation step, until committed
	release   func()                     // the in-flight slot, until the handler returns
	elicit    bool                       // the AddTool wrapper asks the user, then commits
	checked   bool                       // the dispatch stage checked the name against the server's tools (in elicit's padding)
	known     bool                       // with checked: the server had a tool of exactly this name
	def       string                     // with elicit: the digest of the tool's definition
	committed atomic.Bool                // the step is committed: undo leaves it
	grant     *grant.Grant               // the grant whose use answered the ask: refunded if refused
	digest    string                     // the definition digest the pin stage checked (ToolDigest)
	listing   listing                    // the tool's definition as listed, read once (pinstage.go)
	late      atomic.Pointer[lateDenial] // the Guard's first refusal after the stages (runHandler answers it)
	fate                                 // running, then abandoned, committed late or refused late (fate.go)
	waited    atomic.Bool                // the server waited for the client during the call (midcall.go)
}

// lateDenial is a refusal of a call after its stages: by the AddTool
// wrapper, for a handler's panic or Goexit, or for a definition that
// changed during the call (which runHandler audits: audited is false).
type lateDenial struct {
	d       policy.Decision
	audited bool
}

// deny records a late refusal of c; the first one is the call's answer.
func (c *call) deny(d policy.Decision, audited bool) {
	c.late.CompareAndSwap(nil, &lateDenial{d: d, audited: audited})
}

// methodDecision is what the pipeline keeps of the method's decision: a
// monitored method denial (Violation, Reason) carries into the call's.
type methodDecision struct {
	Method    string
	Violation bool
	Reason    string
}

func (c *call) info() Call { return Call{Agent: c.agent, Tool: c.tool, Args: c.args} }

// refusal is a stage's denial: the decision to audit and send, or, when
// err is set, that error to send as it is (approval's own JSON-RPC errors).
type refusal struct {
	d   policy.Decision
	err error
	// required, with a scope denial: every scope the call needs, for the
	// HTTP step-up challenge (ScopeChallenges).
	required []string
	// stage, when set, is the stage whose refusal this is, reported to
	// the Observer in place of the stage that sent it (the scope stage
	// sends the policy's, trust's, answer's or inflight's: refusedAnyway).
	stage string
}

func refuse(d policy.Decision) *refusal { return &refusal{d: d} }

// A stage is one step of the tools/call pipeline before the handler; it
// refuses the call or lets it go on (possibly with a changed decision or
// request). Stages run in the order of Guard.before, which stageOrder pins.
type stage struct {
	name string
	run  func(g *Guard, c *call) *refusal
}

// stages are the tools/call stages of g, in order; a feature that is not
// configured has no stage. doc.go lists the same names (TestStageOrder).
func (g *Guard) stages() []stage {
	all := []stage{
		{"decode", (*Guard).decodeStage},
		{"scope", (*Guard).scopeStage},
		{"inflight", (*Guard).inflightStage},
		{"rate", (*Guard).rateStage},
		{"policy", (*Guard).policyStage},
		{"dispatch", (*Guard).dispatchStage},
		{"pin", (*Guard).pinStage},
		{"trust", (*Guard).trustStage},
		{"conversation", (*Guard).conversationStage},
		{"budget", (*Guard).budgetStage},
		{"answer", (*Guard).answerStage},
		{"commit", (*Guard).commitStage},
	}
	l := g.o.Limits
	off := map[string]bool{
		"trust":        g.o.Trust == nil,
		"scope":        g.o.Scopes == nil,
		"pin":          g.pins.off,
		"conversation": l == nil || l.Conversations == nil,
		"budget":       l == nil || l.Budget == nil,
	}
	out := all[:0:0]
	for _, s := range all {
		if !off[s.name] {
			out = append(out, s)
		}
	}
	return out
}

// toolCall runs a tools/call through the stages, then the handler and the
// result checks. Whatever a stage reserved is released by the one deferred
// undo unless the call committed.
func (g *Guard) toolCall(ctx context.Context, method string, req *mcp.CallToolRequest, md policy.Decision, srv *served, next mcp.MethodHandler, agent string) (mcp.Result, error) {
	c := &call{ctx: ctx, method: method, md: methodDecision{Method: md.Method, Violation: md.Violation, Reason: md.Reason}, req: req, srv: srv, rawTool: req.Params.Name,
		agent: agent, rawArgs: req.Params.Arguments}
	c.tool = normalizeTool(c.rawTool)
	defer g.undo(c)
	for _, s := range g.before {
		if r := s.run(g, c); r != nil {
			g.observeRefusal(c, s.name, r)
			return g.refused(c, r)
		}
	}
	return g.runHandler(c, next)
}

// undo releases the conversation step of a call that did not commit, and
// its in-flight slot unless the handler took it.
func (g *Guard) undo(c *call) {
	if c.release != nil {
		c.release()
	}
	if c.resv == nil || c.committed.Load() {
		return
	}
	if err := c.resv.Release(context.WithoutCancel(c.ctx)); err != nil {
		g.log.WarnContext(c.ctx, "gatehouse: releasing a conversation step failed", "error", err)
	}
}

// refused audits a stage's refusal and returns it in the configured form.
func (g *Guard) refused(c *call, r *refusal) (mcp.Result, error) {
	g.undoGrant(c)
	args := c.rawArgs
	if r.d.Code == CodeInvalidParams {
		args = nil // not a JSON object: nothing to record
	}
	if err := g.auditDecision(c.ctx, g.named(c, r.d), c.agent, args); err != nil {
		g.log.ErrorContext(c.ctx, "gatehouse: audit write failed", "method", r.d.Method, "error", err)
	}
	if r.d.Code != CodeInternalError && r.d.Code != CodeDefinitionChanged { // the server's drift is not the agent's doing
		g.recordTrust(c.ctx, c.agent, r.d, true)
	}
	if r.err != nil {
		return nil, r.err
	}
	return g.answerDenial(r.d, c.rawTool)
}

// answerDenial is a tools/call refusal in the configured form: a tool
// result with the reason (DenyAsToolResult) or the JSON-RPC error.
func (g *Guard) answerDenial(d policy.Decision, rawTool string) (mcp.Result, error) {
	if g.o.DenyAsToolResult {
		return toolError(d), nil
	}
	return nil, rpcError(d, rawTool)
}

// commit makes an approved call final, in one place for every way a call
// is approved, so that a refused call consumes nothing (QWED §9.4-9.5):
// the decision is audited first (a log that cannot record it refuses the
// call before anything is spent), then the budget charged (a refusal
// leaves the step to the pipeline's undo), then the conversation step
// committed (a loop found now refunds the charge). A refusal after the
// audit is recorded as a second event. Only after all of them may the
// handler run.
func (g *Guard) commit(c *call) *refusal {
	if err := g.auditDecision(c.ctx, g.named(c, c.d), c.agent, c.rawArgs); err != nil {
		return refuse(internal(c.d.Method, c.tool, auditDown))
	}
	var budget *ratelimit.Budget
	if l := g.o.Limits; l != nil {
		budget = l.Budget
	}
	if budget != nil {
		if err := budget.Charge(c.ctx, c.agent, g.usage(c.info())); err != nil {
			return refuse(limitDecision(c.d.Method, c.tool, err))
		}
	}
	if c.resv != nil {
		if err := c.resv.Commit(c.ctx); err != nil {
			if budget != nil {
				if rerr := budget.Refund(context.WithoutCancel(c.ctx), c.agent, g.usage(c.info())); rerr != nil {
					g.log.ErrorContext(c.ctx, "gatehouse: refunding a refused call failed", "tool", c.tool, "error", rerr)
				}
			}
			return refuse(limitDecision(c.d.Method, c.tool, err))
		}
		c.committed.Store(true)
	}
	g.recordTrust(c.ctx, c.agent, c.d, false)
	g.observeAllowed(c)
	return nil
}

// named is d with the tool name the audit log may hold: a raw name that
// carries a secret (which normalization would lowercase past the
// scanner's rules) is recorded redacted.
func (g *Guard) named(c *call, d policy.Decision) policy.Decision {
	if g.dlp != nil && d.Tool != "" && d.Outcome != policy.Allow {
		if red, f := g.dlp.Redact(c.rawTool); len(f) > 0 {
			d.Tool = normalizeTool(red)
		}
	}
	return d
}

func (g *Guard) commitStage(c *call) *refusal {
	if c.elicit {
		return nil // the AddTool wrapper commits once the user has answered
	}
	return g.commit(c)
}

func (g *Guard) usage(c Call) ratelimit.Usage {
	if l := g.o.Limits; l == nil || l.Usage == nil {
		return ratelimit.Usage{}
	}
	return g.o.Limits.Usage(c)
}

type callKey struct{}

// callFrom returns the pipeline's call for the request being handled.
func callFrom(ctx context.Context) (*call, bool) {
	c, ok := ctx.Value(callKey{}).(*call)
	return c, ok
}

// callOf returns g's own call for the request being handled: where
// several Guards are installed on one server, the innermost one's call
// shadows the others' in the handler's context, and each call's context
// leads to the call of the Guard outside it. ok is false when the request
// did not pass through g.
func callOf(ctx context.Context, g *Guard) (*call, bool) {
	c, ok := callFrom(ctx)
	for ok && c.srv.guard != g {
		c, ok = callFrom(c.ctx)
	}
	return c, ok
}

// DecisionFrom returns the guard's decision for the tools/call being
// handled, for tool handlers that want to log or show it. ok is false when
// the request did not pass through a Guard.
func DecisionFrom(ctx context.Context) (policy.Decision, bool) {
	c, ok := callFrom(ctx)
	if !ok {
		return policy.Decision{}, false
	}
	return c.d, true
}
