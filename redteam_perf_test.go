package gatehouse_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

type redteamPerfSink struct {
	mu     sync.Mutex
	events []audit.Event
}

func (s *redteamPerfSink) Write(_ context.Context, e *audit.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, *e)
	return nil
}

func (s *redteamPerfSink) decisions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		out = append(out, e.Decision)
	}
	return out
}

// redteamPerfHandler is a Guard's middleware around next, with a session,
// for calls without a wire.
func redteamPerfHandler(t *testing.T, g *gatehouse.Guard, tools []string, next mcp.MethodHandler) (mcp.MethodHandler, *mcp.ServerSession) {
	t.Helper()
	list := &mcp.ListToolsResult{}
	for _, n := range tools {
		list.Tools = append(list.Tools, &mcp.Tool{Name: n, InputSchema: map[string]any{"type": "object"}})
	}
	inner := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			return list, nil
		}
		return next(ctx, method, req)
	}
	st, _ := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "rt", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	recv, _ := g.Middleware()
	return recv(inner), ss
}

// A handler that ends its goroutine without returning (runtime.Goexit,
// as t.FailNow in a handler does) neither answers nor panics: the call
// must still be answered with an error, and audited, not left waiting
// for ever (no watchdog watches a handler that is gone).
func TestRedTeamPerf_HandlerGoexitIsAnswered(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: goexit}
spec:
  allowed_tools: [gone]
`
	sink := &redteamPerfSink{}
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{Audit: sink, HandlerTimeout: 100 * time.Millisecond, DLP: &gatehouse.DLPOptions{Off: true}, Pins: &gatehouse.PinOptions{Off: true}})
	h, ss := redteamPerfHandler(t, g, []string{"gone"}, func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		runtime.Goexit()
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := h(ctx, "tools/call", &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "gone", Arguments: []byte(`{}`)}})
	if ctx.Err() != nil {
		t.Fatalf("the call was not answered within 5s (HandlerTimeout 100ms): %v %v", res, err)
	}
	if err == nil {
		t.Fatalf("a handler that vanished was answered with %v and no error", res)
	}
	if d := sink.decisions(); len(d) < 2 {
		t.Fatalf("audited %v, want the allow and the failure", d)
	}
}

// What a handler's context carries survives its end and the timeout:
// DecisionFrom and TraceFromContext work from the handler's context, from
// context.WithoutCancel of it and from children derived before and after
// the timeout and after the handler returned; an AfterFunc on it runs at
// the timeout; a child's deadline is the handler's. The trace id reaches
// the audit events of the call. Passes on the current code; pins the
// lazy context's lookups.
func TestRedTeamPerf_HandlerContextLookups(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: lookups}
spec:
  allowed_tools: [slow]
`
	sink := &redteamPerfSink{}
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{Audit: sink, HandlerTimeout: 30 * time.Millisecond, DLP: &gatehouse.DLPOptions{Off: true}, Pins: &gatehouse.PinOptions{Off: true}})
	tc := gatehouse.TraceContext{TraceID: [16]byte{0: 0xab, 15: 1}, SpanID: [8]byte{0: 0xcd, 7: 2}}
	fails := make(chan string, 32)
	check := func(when string, ctx context.Context) {
		if _, ok := gatehouse.DecisionFrom(ctx); !ok {
			fails <- when + ": DecisionFrom found nothing"
		}
		if got, ok := gatehouse.TraceFromContext(ctx); !ok || got.TraceID != tc.TraceID {
			fails <- when + ": TraceFromContext lost the trace"
		}
	}
	returned := make(chan context.Context, 1)
	h, ss := redteamPerfHandler(t, g, []string{"slow"}, func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		check("handler", ctx)
		check("WithoutCancel", context.WithoutCancel(ctx))
		before, cancel := context.WithCancel(ctx)
		defer cancel()
		fired := make(chan struct{})
		context.AfterFunc(ctx, func() { close(fired) })
		select {
		case <-fired:
		case <-time.After(5 * time.Second):
			fails <- "the AfterFunc did not run at the timeout"
		}
		<-before.Done()
		check("child before the timeout", before)
		after, cancel2 := context.WithTimeout(ctx, time.Hour)
		defer cancel2()
		if d1, _ := after.Deadline(); true {
			if d0, _ := ctx.Deadline(); !d1.Equal(d0) {
				fails <- "a child's deadline is not the handler's"
			}
		}
		check("child after the timeout", after)
		returned <- ctx
		return &mcp.CallToolResult{}, nil
	})
	ctx := gatehouse.ContextWithTrace(context.Background(), tc)
	// The handler returns as the timeout strikes: either answer may win.
	h(ctx, "tools/call", &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "slow", Arguments: []byte(`{}`)}})
	hctx := <-returned
	time.Sleep(10 * time.Millisecond) // the handler's goroutine ends
	check("after return", hctx)
	child, cancel := context.WithCancel(hctx)
	defer cancel()
	check("child after return", child)
	close(fails)
	for f := range fails {
		t.Error(f)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.events) == 0 {
		t.Error("nothing audited")
	}
	for _, e := range sink.events {
		if e.TraceID != tc.TraceIDString() || e.SpanID != tc.SpanIDString() {
			t.Errorf("audit event %s has trace %q span %q", e.Decision, e.TraceID, e.SpanID)
		}
	}
}

// A thousand concurrent calls through the Guard whose handlers return in
// time, past the timeout (ignoring their context or waiting on it), or
// panic: every call is answered, and once the handlers are done no
// goroutine stays (watchdog, handler hops, context registrations).
// Passes on the current code.
func TestRedTeamPerf_ThousandCallsNoLeak(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: many}
spec:
  allowed_tools: [t]
`
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{HandlerTimeout: 20 * time.Millisecond, DLP: &gatehouse.DLPOptions{Off: true}, Pins: &gatehouse.PinOptions{Off: true},
		Limits: &gatehouse.LimitOptions{InFlight: &ratelimit.InFlightOptions{PerAgent: 2000, PerTool: 2000, Total: 2000}}})
	var n atomic.Int64
	var handlers sync.WaitGroup
	h, ss := redteamPerfHandler(t, g, []string{"t"}, func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		defer handlers.Done()
		switch n.Add(1) % 4 {
		case 0:
			time.Sleep(40 * time.Millisecond)
		case 1:
			<-ctx.Done()
			return nil, ctx.Err()
		case 2:
			panic("boom")
		}
		return &mcp.CallToolResult{}, nil
	})
	runtime.GC()
	before := runtime.NumGoroutine()
	var calls sync.WaitGroup
	var answered atomic.Int64
	for range 1000 {
		calls.Add(1)
		handlers.Add(1)
		go func() {
			defer calls.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			h(ctx, "tools/call", &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "t", Arguments: []byte(`{}`)}})
			if ctx.Err() == nil {
				answered.Add(1)
			}
		}()
	}
	calls.Wait()
	if answered.Load() != 1000 {
		t.Fatalf("%d of 1000 calls answered", answered.Load())
	}
	if n.Load() != 1000 {
		t.Fatalf("%d handlers ran", n.Load())
	}
	handlers.Wait()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before+2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
		}
	}
}
