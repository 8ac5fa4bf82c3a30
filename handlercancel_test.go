package gatehouse_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// The client's cancellation reaches the handler's goroutine hop both
// ways: a handler that ignores its context no longer holds the call (the
// call ends with the client's error, not a timeout), and a handler that
// waits on its context (made lazily, on its first Done) is cancelled with
// the client's cause, not the timeout's.
func TestClientCancelEndsBoundedCall(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: cancel}
spec:
  allowed_tools: [stuck, waits]
`
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{HandlerTimeout: time.Hour, DLP: &gatehouse.DLPOptions{Off: true}, Pins: &gatehouse.PinOptions{Off: true}})
	release := make(chan struct{})
	defer close(release)
	seen := make(chan error, 1)
	list := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "stuck", InputSchema: map[string]any{"type": "object"}}, {Name: "waits", InputSchema: map[string]any{"type": "object"}}}}
	next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			return list, nil
		}
		if req.(*mcp.CallToolRequest).Params.Name == "stuck" {
			<-release
			return &mcp.CallToolResult{}, nil
		}
		<-ctx.Done()
		seen <- context.Cause(ctx)
		return nil, ctx.Err()
	}
	st, _ := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "cancel", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	recv, _ := g.Middleware()
	h := recv(next)
	why := errors.New("the client went away")
	for _, tool := range []string{"stuck", "waits"} {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(20*time.Millisecond, func() { cancel(why) })
		done := make(chan error, 1)
		go func() {
			_, err := h(ctx, "tools/call", &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: []byte(`{}`)}})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: the cancelled call ended with %v, want context.Canceled", tool, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the client's cancellation did not end the call", tool)
		}
	}
	select {
	case cause := <-seen:
		if !errors.Is(cause, why) {
			t.Fatalf("the waiting handler saw cause %v, want the client's", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting handler was not cancelled")
	}
}
