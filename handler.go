package gatehouse

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// runHandler is the pipeline after the stages: the handler, bounded by
// Options.HandlerTimeout, then the result bounded by MaxResultBytes, then
// DLP. The handler gets the call in its context (DecisionFrom, AddTool).
func (g *Guard) runHandler(c *call, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := g.bounded(c.ctx, c, next)
	if c.abandoned() {
		return res, err // the timeout's answer, audited
	}
	if lres, lerr, ok := g.lateAnswer(c); ok {
		return lres, lerr
	}
	if err != nil {
		return nil, g.redactError(c.ctx, c.md.Method, c.tool, c.agent, err)
	}
	if res == nil {
		return nil, nil
	}
	if _, ok := res.(*mcp.CallToolResult); ok {
		if d, over := g.oversized(c.md.Method, c.tool, res); over {
			g.auditFailure(c.ctx, d, c.agent)
			return g.answerDenial(d, c.rawTool)
		}
	}
	out, d := g.filteredResult(c.ctx, c.md.Method, c.tool, c.agent, res)
	if d != nil {
		return g.answerDenial(*d, c.rawTool)
	}
	return out, nil
}

// oversized reports the denial of a result over MaxResultBytes, measured
// before anything copies it (DLP would, in memory).
func (g *Guard) oversized(method, tool string, res mcp.Result) (policy.Decision, bool) {
	n := mcpredact.Size(res)
	if n <= g.o.MaxResultBytes {
		return policy.Decision{}, false
	}
	what := "The tool's result"
	if method != policy.MethodToolsCall {
		what = "The " + clipName(method) + " result"
	}
	return internal(method, tool, fmt.Sprintf("%s of about %d bytes exceeds the server's limit of %d bytes (gatehouse.Options.MaxResultBytes), so it was withheld", what, n, g.o.MaxResultBytes)), true
}

// handled is a handler's answer, or (timeout) the watchdog's word that the
// handler is abandoned.
type handled struct {
	res     mcp.Result
	err     error
	timeout bool
}

// bounded runs the handler in its own goroutine so that a handler that
// ignores its context cannot hold the call past HandlerTimeout: the call
// is then answered (and audited) while the handler's goroutine is left to
// finish on its own. A panic in the handler is recovered there and denies.
func (g *Guard) bounded(ctx context.Context, c *call, next mcp.MethodHandler) (mcp.Result, error) {
	r := g.watch.watch(ctx, c)
	release := c.release
	c.release = nil // the handler's goroutine holds the in-flight slot until it returns
	go g.handle(r, next, release)
	select {
	case h := <-r.result:
		if !h.timeout {
			return h.res, h.err
		}
		select {
		case h := <-r.result: // it returned as the timeout struck: keep its answer
			return h.res, h.err
		default:
		}
	case <-ctx.Done():
		select {
		case h := <-r.result:
			if !h.timeout {
				return h.res, h.err
			}
		default:
		}
		return nil, ctx.Err() // the client cancelled: nothing to answer
	}
	// A call the wrapper committed is answered so too, and marked so: its
	// handler's later panic, Goexit or withdrawal is not audited again.
	if !c.claimTimeout() {
		// The handler's goroutine refused the call first (the timeout's
		// cancel ended its elicitation) and audits that: its answer, on
		// its way, is the call's.
		select {
		case h := <-r.result:
			return h.res, h.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	d := internal(c.md.Method, c.tool, fmt.Sprintf("The tool did not finish within %v (gatehouse.Options.HandlerTimeout), so the call was abandoned", g.o.HandlerTimeout))
	g.log.ErrorContext(ctx, "gatehouse: a tool handler timed out", "tool", c.tool, "timeout", g.o.HandlerTimeout)
	g.auditFailure(ctx, d, c.agent)
	return g.answerDenial(d, c.rawTool)
}

// handle runs the handler on its own goroutine for bounded, then gives
// back its in-flight slot and its place under the watchdog.
// A handler that ends its goroutine without returning (runtime.Goexit, as
// t.FailNow does) is denied too: nothing else would answer its caller.
func (g *Guard) handle(r *watched, next mcp.MethodHandler, release func()) {
	answered := false
	defer g.settle(r, release, &answered)
	defer g.recoverHandler(r, &answered)
	res, err := next(r, r.call.method, r.call.req)
	r.result <- handled{res: res, err: err}
	answered = true
}

// recoverHandler, deferred by handle, recovers a panic in the handler.
// The deferred functions keep small frames, the cold paths being in
// functions of their own: handle's goroutine starts on a small stack, and
// a deferred function with a large frame made every call grow it (half a
// microsecond).
func (g *Guard) recoverHandler(r *watched, answered *bool) {
	if p := recover(); p != nil {
		g.panicked(r, p)
		*answered = true
	}
}

// settle, deferred by handle, answers a handler that ended its goroutine
// without returning (runtime.Goexit, as t.FailNow does: nothing else would
// answer its caller), then gives back the in-flight slot and the place
// under the watchdog.
func (g *Guard) settle(r *watched, release func(), answered *bool) {
	if !*answered {
		g.vanished(r)
	}
	g.watch.stop(r)
	if release != nil {
		release()
	}
}

// panicked logs and audits a panic in a handler and denies the call.
//
//go:noinline
func (g *Guard) panicked(r *watched, p any) {
	c := r.call
	g.log.ErrorContext(r, "gatehouse: recovered a panic in a tool handler; the call was denied", "tool", c.tool, "panic_type", fmt.Sprintf("%T", p), "stack", string(debug.Stack()))
	d := internal(c.md.Method, c.tool, "The server failed while handling this request; it was denied")
	if c.claimRefusal() {
		g.auditFailure(r, d, c.agent)
		c.deny(d, true)
	}
	r.result <- handled{err: rpcError(d, c.rawTool)}
}

// vanished audits a handler that ended without returning and denies the
// call.
//
//go:noinline
func (g *Guard) vanished(r *watched) {
	c := r.call
	d := internal(c.md.Method, c.tool, "The tool's handler ended without returning, so the call was denied")
	if c.claimRefusal() {
		g.auditFailure(r, d, c.agent)
		c.deny(d, true)
	}
	r.result <- handled{err: rpcError(d, c.rawTool)}
}

// auditFailure records a failure after the decision (a handler that timed
// out or panicked, a result withheld); a failed write is logged, the
// caller's error stands.
func (g *Guard) auditFailure(ctx context.Context, d policy.Decision, agent string) {
	if err := g.auditDecision(context.WithoutCancel(ctx), d, agent, nil); err != nil {
		g.log.ErrorContext(ctx, "gatehouse: audit write failed", "method", d.Method, "error", err)
	}
}
