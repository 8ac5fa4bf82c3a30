package gatehouse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Near misses for the one-goroutine watchdog: many handlers that ignore
// their context are all answered; a handler's child contexts carry the
// decision (DecisionFrom), the deadline and, past it, cancellation; a
// panic denies; a handler that returns in time keeps its answer.
func TestRedTeam13_WatchdogUnderLoad(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: wd}
spec:
  allowed_tools: [stuck, child, boom, quick]
`
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{HandlerTimeout: 200 * time.Millisecond})
	s := mcp.NewServer(&mcp.Implementation{Name: "wd", Version: "1"}, nil)
	release := make(chan struct{})
	defer close(release)
	ran := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "stuck"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		<-release // ignores its context
		return ran(), nil, nil
	})
	childDone := make(chan error, 1)
	mcp.AddTool(s, &mcp.Tool{Name: "child"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		type k struct{}
		c1, cancel := context.WithCancel(context.WithValue(ctx, k{}, 1))
		defer cancel()
		c2, cancel2 := context.WithTimeout(c1, time.Hour)
		defer cancel2()
		var err error
		if _, found := gatehouse.DecisionFrom(c2); !found {
			err = errors.New("DecisionFrom found nothing in a child context")
		} else if d, has := c2.Deadline(); !has || time.Until(d) > 200*time.Millisecond {
			err = errors.New("the child context lost the handler's deadline")
		} else {
			select {
			case <-c2.Done():
				// As under context.WithTimeout: an HTTP client or a
				// driver below reports a timeout, not a cancellation.
				if !errors.Is(c2.Err(), context.DeadlineExceeded) || !errors.Is(c1.Err(), context.DeadlineExceeded) {
					err = fmt.Errorf("past the timeout the child contexts report %v and %v, want DeadlineExceeded", c1.Err(), c2.Err())
				} else if cause := context.Cause(c2); cause == nil || !strings.Contains(cause.Error(), "HandlerTimeout") {
					err = fmt.Errorf("past the timeout the child's cause is %v, want the HandlerTimeout error", cause)
				}
			case <-time.After(10 * time.Second):
				err = errors.New("the child context was not cancelled past the timeout")
			}
		}
		childDone <- err
		return ran(), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		panic("boom")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "quick"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		return ran(), nil, nil
	})
	g.Install(s)
	cs, done := connectClient(s, nil)
	defer done()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 24; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stuck", Arguments: map[string]any{}})
			if err == nil || ctx.Err() != nil {
				errs <- errors.New("a stuck handler's call was not answered with an error in time")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// It returns as its context ends, racing the watchdog's answer: either
	// answer is right (a handler returning at the timeout keeps its own).
	_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "child", Arguments: map[string]any{}})
	select {
	case err := <-childDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the child handler never finished")
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}}); err == nil {
		t.Error("a panicking handler's call was not denied")
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quick", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("a quick handler: %v %v", res, err)
	}
}
