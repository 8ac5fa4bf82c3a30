package gatehouse

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// The hooks between the pipeline and Options.Observer. Each returns at
// once when there is no Observer; the only work done without one is
// reading the request's traceparent (a map lookup when _meta is absent)
// and putting its ids into the audit events.

// observed is one request's observation state while an Observer is set.
// It is the request's context from begin on (one allocation, where a
// context value would take two): its Value answers observedKey.
type observed struct {
	context.Context
	start   time.Duration // the arrival, as read by monotonic
	method  string
	asked   atomic.Bool // an ask was answered: the deciding stage is "answer"
	decided atomic.Bool

	mu         sync.Mutex // the decision may come from the AddTool wrapper's goroutine
	tool       string
	registered bool
}

type observedKey struct{}

func (o *observed) Value(key any) any {
	if _, ok := key.(observedKey); ok {
		return o
	}
	return o.Context.Value(key)
}

func observing(ctx context.Context) *observed {
	o, _ := ctx.Value(observedKey{}).(*observed)
	return o
}

// monoBase anchors the hooks' clock readings.
var monoBase = time.Now()

// monotonic is the time since monoBase on the monotonic clock: one clock
// read (time.Since of a time with a monotonic reading), where time.Now
// takes two (wall and monotonic). The difference of two readings is the
// duration between them, exactly as time.Since of a time.Now would give.
func monotonic() time.Duration { return time.Since(monoBase) }

// begin puts the request's trace context (params._meta, SEP-414) into ctx
// and starts the Observer's view of the request.
func (g *Guard) begin(ctx context.Context, method string, req mcp.Request, agent string) (context.Context, *observed) {
	t, traced := requestTrace(req)
	if traced {
		ctx = ContextWithTrace(ctx, t)
	}
	if g.o.Observer == nil {
		return ctx, nil
	}
	if !traced {
		t, _ = TraceFromContext(ctx)
	}
	o := &observed{Context: ctx, start: monotonic(), method: method}
	ctx = o
	start := RequestStart{Method: method, Agent: agent, Trace: t}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		start.SessionID = ss.ID()
	}
	if octx := g.o.Observer.Start(ctx, start); octx != nil {
		ctx = octx
	}
	return ctx, o
}

// observerPanic recovers a panic of the Observer where the guard's own
// recovery no longer applies; the request's answer stands.
func (g *Guard) observerPanic(ctx context.Context, method string) {
	if r := recover(); r != nil {
		g.log.ErrorContext(ctx, "gatehouse: recovered a panic in Options.Observer."+method, "panic_type", fmt.Sprintf("%T", r))
	}
}

// observeRecovered reports the denial of a request that panicked; it runs
// inside the guard's recovery, so a panic of the Observer is recovered here.
func (g *Guard) observeRecovered(ctx context.Context, d policy.Decision, req mcp.Request) {
	if g.o.Observer == nil {
		return
	}
	defer g.observerPanic(ctx, "Decision")
	g.observeMethod(ctx, d, identity(req, g.o.DefaultAgent), "recover")
}

// end tells the Observer how the request was answered. It runs after the
// guard's recovery: a panic in the Observer here is recovered on its own.
func (g *Guard) end(ctx context.Context, o *observed, res mcp.Result, err error) {
	if o == nil {
		return
	}
	defer g.observerPanic(ctx, "End")
	e := RequestEnd{Method: o.method, Duration: monotonic() - o.start}
	o.mu.Lock()
	e.Tool, e.Registered = o.tool, o.registered
	o.mu.Unlock()
	if err != nil {
		e.Code = CodeInternalError
		if je := (*jsonrpc.Error)(nil); errors.As(err, &je) {
			e.Code = int(je.Code)
		}
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		e.ToolError = true
	}
	g.o.Observer.End(ctx, e)
}

// decided reports a decision on the request of ctx, observed by o (nil:
// none): one final decision per request, after at most one ASK (AddTool's
// question, which go-sdk answers inside the same request on sessions
// before 2026-07-28).
func (g *Guard) decided(ctx context.Context, o *observed, d policy.Decision, stage, agent string, registered bool) {
	if o == nil {
		return
	}
	if d.Outcome == policy.Ask {
		if o.decided.Load() {
			return
		}
	} else if !o.decided.CompareAndSwap(false, true) {
		return
	}
	tool := d.Tool
	if d.Outcome != policy.Allow {
		tool = g.redacted(tool) // as the audit log records it
	}
	o.mu.Lock()
	o.tool, o.registered = tool, registered
	o.mu.Unlock()
	outcome := d.AuditDecision()
	if d.Outcome == policy.ProtectedPath {
		outcome = d.Outcome.String()
	}
	rule := d.Rule
	if rule == "" {
		rule = d.FailedRule
	}
	g.o.Observer.Decision(ctx, DecisionEvent{Outcome: outcome, Code: d.Code, Method: d.Method, Tool: tool, Registered: registered,
		Agent: agent, Stage: stage, Rule: rule, Latency: monotonic() - o.start})
}

// observeRefusal reports a tools/call stage's refusal: the decision, and
// the limit that refused it, if one did.
func (g *Guard) observeRefusal(c *call, stage string, r *refusal) {
	if g.o.Observer == nil {
		return
	}
	d := g.named(c, r.d)
	if r.stage != "" {
		stage = r.stage
	}
	registered := c.registered()
	g.decided(c.ctx, observing(c.ctx), d, stage, c.agent, registered)
	limit := d.Outcome == policy.RateLimited ||
		(d.Code == policy.CodeForbidden && (stage == "conversation" || stage == "budget" || stage == "commit"))
	if limit {
		g.o.Observer.Limit(c.ctx, LimitEvent{Kind: stage, Tool: g.redacted(d.Tool), Agent: c.agent, Code: d.Code, Reason: d.FailedRule, Registered: registered})
	}
}

// observeAllowed reports a committed call. A panic of the Observer here
// is recovered and the call goes on: the call is final once committed
// (audited ALLOW, charged, its step consumed), and refusing it now would
// leave a denied call that consumed them (QWED §9.4-9.5). Before the
// commit, an Observer's panic denies (the guard's recovery).
func (g *Guard) observeAllowed(c *call) {
	o := observing(c.ctx)
	if o == nil {
		return
	}
	defer g.observerPanic(c.ctx, "Decision")
	stage := "policy"
	if o.asked.Load() {
		stage = "answer"
	}
	g.decided(c.ctx, o, c.d, stage, c.agent, c.registered())
}

// observeMethod reports the decision on a request before the tools/call
// pipeline: a method allowed or refused, a protected path, bad params, an
// audit failure. An empty stage is read from the denial.
func (g *Guard) observeMethod(ctx context.Context, d policy.Decision, agent, stage string) {
	if g.o.Observer == nil {
		return
	}
	switch {
	case stage != "":
	case d.Outcome == policy.ProtectedPath:
		stage = "paths"
	case d.Code == CodeInvalidParams:
		stage = "decode"
	default:
		stage = "method"
	}
	g.decided(ctx, observing(ctx), d, stage, agent, false)
}

// observeAuditedMethod reports an allowed request other than tools/call
// once it is audited ALLOW. A panic of the Observer here is recovered and
// the request goes on, as for a committed call (observeAllowed): refused
// now, the request was on record twice, ALLOW and then BLOCK.
func (g *Guard) observeAuditedMethod(ctx context.Context, md policy.Decision, agent string) {
	if g.o.Observer == nil {
		return
	}
	defer g.observerPanic(ctx, "Decision")
	g.observeMethod(ctx, md, agent, "method")
}

// timedAsk runs an answer (passkey, Asker) and reports it as an ask.
func (g *Guard) timedAsk(c *call, channel string, answer func(*Guard, *call) *refusal) *refusal {
	if g.o.Observer == nil {
		return answer(g, c)
	}
	start := monotonic()
	r := answer(g, c)
	var d policy.Decision
	if r != nil {
		d = r.d
	}
	g.asked(c, channel, d.Code, monotonic()-start)
	return r
}

// observeElicited reports the answer to AddTool's elicitation: code is the
// denial's, 0 when approved. The wait is counted from the moment the
// question was signed.
func (g *Guard) observeElicited(c *call, state string, code int) {
	if g.o.Observer == nil {
		return
	}
	var wait time.Duration
	if st, err := g.sealer.Open(state); err == nil {
		// The state's time is a wall clock's, maybe another replica's
		// (Elicitation.Key): one behind it must not make the wait negative.
		wait = max(g.now().Sub(time.UnixMilli(st.Exp).Add(-elicitTTL)), 0)
	}
	g.asked(c, "elicitation", code, wait)
}

func (g *Guard) asked(c *call, channel string, code int, wait time.Duration) {
	answer := "approved"
	switch {
	case code == policy.CodeUserTimeout:
		answer = "timeout"
	case code != 0:
		answer = "denied"
	}
	if o := observing(c.ctx); o != nil && code == 0 {
		o.asked.Store(true)
	}
	g.o.Observer.Ask(c.ctx, AskEvent{Channel: channel, Tool: c.tool, Agent: c.agent, Answer: answer, Duration: wait})
}

// observeRedactions reports each DLP rule that fired in one message.
func (g *Guard) observeRedactions(ctx context.Context, direction, method, tool string, findings []dlp.Finding) {
	if g.o.Observer == nil {
		return
	}
	for _, f := range mergeFindings(findings) {
		g.o.Observer.Redaction(ctx, RedactionEvent{Rule: f.Rule, Count: f.Count, Direction: direction, Method: method, Tool: tool})
	}
}

// writeAudit writes e with the request's trace context, and reports the
// write.
func (g *Guard) writeAudit(ctx context.Context, e *audit.Event) error {
	// The agent is the client's own name unless a token names the user:
	// a secret given as a client name is redacted like one in a value.
	e.Agent = g.redacted(e.Agent)
	if t, ok := TraceFromContext(ctx); ok && e.TraceID == "" {
		e.TraceID, e.SpanID = t.hexIDs()
	}
	if g.o.Observer == nil {
		return g.sinkWrite(ctx, e)
	}
	start := monotonic()
	err := g.sinkWrite(ctx, e)
	g.o.Observer.AuditWrite(ctx, AuditWriteEvent{Decision: e.Decision, Event: e.Event, Latency: monotonic() - start, Err: err})
	return err
}

// sinkWrite writes e to Options.Audit. The file Writer is called directly,
// so the event stays on the caller's stack (an interface call would move
// every event to the heap); any other Sink gets its own copy, which it may
// keep.
func (g *Guard) sinkWrite(ctx context.Context, e *audit.Event) error {
	if w, ok := g.o.Audit.(*audit.Writer); ok {
		return w.Write(ctx, e)
	}
	c := *e
	return g.o.Audit.Write(ctx, &c)
}

// auditSink is s, or nil for a nil *audit.Writer (which meant "no audit
// log" when the field was a pointer).
func auditSink(s audit.Sink) audit.Sink {
	if w, ok := s.(*audit.Writer); ok && w == nil {
		return nil
	}
	return s
}

// registered reports whether the server has a tool named exactly raw, as
// last read.
func (x *toolIndex) registered(raw string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.exact[raw]
	return ok
}

// registered reports whether the server has a tool named exactly as c
// calls: as the dispatch stage found it in the listing it checked the
// call against, or, for a call refused before that stage, as last read.
func (c *call) registered() bool {
	if c.checked {
		return c.known
	}
	return c.srv.index.registered(c.rawTool)
}
