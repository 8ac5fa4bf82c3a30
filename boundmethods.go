package gatehouse

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// contentMethods are the methods other than tools/call whose handlers are
// the server's code run on the client's request, with content for an
// answer: HandlerTimeout bounds them as it bounds a tool's.
// subscriptions/listen is left out: it waits for the client by design.
var contentMethods = map[string]bool{
	"resources/read": true, "prompts/get": true, "completion/complete": true,
}

// boundedMethod runs the handler of a content method in its own goroutine,
// so that one that ignores its context cannot hold the request past
// HandlerTimeout: the request is then answered with -32603 and audited,
// and the handler's context ends with DeadlineExceeded. A panic or a
// Goexit in the handler is recovered there and denies, audited once.
func (g *Guard) boundedMethod(ctx context.Context, method string, md policy.Decision, req mcp.Request, next mcp.MethodHandler, agent string) (mcp.Result, error) {
	hctx, cancel := context.WithTimeoutCause(ctx, g.o.HandlerTimeout, errHandlerTimeout)
	out := make(chan handled, 1)
	f := new(fate)
	go g.handleMethod(hctx, cancel, method, md, req, next, agent, out, f)
	select {
	case h := <-out:
		return h.res, h.err
	case <-hctx.Done():
	}
	select {
	case h := <-out: // it returned as the timeout struck: keep its answer
		return h.res, h.err
	default:
	}
	if !f.claimTimeout() {
		// The handler's goroutine refused the request first (it panicked
		// or called Goexit as the timeout struck) and audits that: its
		// answer, on its way, is the request's.
		select {
		case h := <-out:
			return h.res, h.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // the client cancelled: nothing to answer
	}
	d := internal(md.Method, "", fmt.Sprintf("The %s handler did not finish within %v (gatehouse.Options.HandlerTimeout), so the request was abandoned", clipName(method), g.o.HandlerTimeout))
	g.log.ErrorContext(ctx, "gatehouse: a handler timed out", "method", clipName(method), "timeout", g.o.HandlerTimeout)
	g.auditFailure(ctx, d, agent)
	return nil, rpcError(d, "")
}

// handleMethod is boundedMethod's goroutine.
func (g *Guard) handleMethod(ctx context.Context, cancel context.CancelFunc, method string, md policy.Decision, req mcp.Request, next mcp.MethodHandler, agent string, out chan<- handled, f *fate) {
	answered := false
	// The handler's context ends after its answer is sent: ended before,
	// it woke boundedMethod as if HandlerTimeout had struck, and a panic
	// was answered and audited as a timeout.
	defer cancel()
	defer func() {
		p := recover()
		if p == nil && answered {
			return
		}
		reason := "The handler ended without returning, so the request was denied"
		if p != nil {
			g.log.ErrorContext(ctx, "gatehouse: recovered a panic in a handler; the request was denied", "method", clipName(method), "panic_type", fmt.Sprintf("%T", p), "stack", string(debug.Stack()))
			reason = "The server failed while handling this request; it was denied"
		}
		d := internal(md.Method, "", reason)
		if f.claimRefusal() {
			g.auditFailure(ctx, d, agent)
		}
		out <- handled{err: rpcError(d, "")}
	}()
	res, err := next(ctx, method, req)
	answered = true
	out <- handled{res: res, err: err}
}
