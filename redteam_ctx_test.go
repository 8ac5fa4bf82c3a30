package gatehouse_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// A handler that outlives HandlerTimeout while an HTTP request made with
// its context (or one derived from it) is in flight: the client's error is
// a timeout, as under context.WithTimeout (errors.Is DeadlineExceeded,
// net.Error's Timeout), not an error of a kind callers do not look for.
// net/http reports context.Cause, not Err. Once all is answered no
// goroutine is left.
func TestRedTeamCtx_HTTPRequestPastTimeout(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: ctx}
spec:
  allowed_tools: [fetch]
`
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	}))
	defer srv.Close()
	defer close(hang)
	base := runtime.NumGoroutine()
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{HandlerTimeout: 100 * time.Millisecond})
	s := mcp.NewServer(&mcp.Implementation{Name: "ctx", Version: "1"}, nil)
	const calls = 8
	errs := make(chan error, calls)
	mcp.AddTool(s, &mcp.Tool{Name: "fetch"}, func(ctx context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
		if in["child"] == true {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		if err != nil {
			errs <- err
			return nil, nil, err
		}
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
			errs <- errors.New("the request outlived the handler's timeout")
			return nil, nil, nil
		}
		var ne net.Error
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
			errs <- errors.New("past HandlerTimeout the HTTP client reports " + err.Error() + ", not a timeout (DeadlineExceeded)")
		} else {
			errs <- nil
		}
		return nil, nil, err
	})
	g.Install(s)
	cs, done := connectClient(s, nil)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"child": i%2 == 1}})
		})
	}
	wg.Wait()
	for range calls {
		select {
		case err := <-errs:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a handler's request never ended")
		}
	}
	done()
	srv.Client().CloseIdleConnections()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base+2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
	}
}

// The handler's context kept past the handler's return (a goroutine it
// started): Canceled then, with Canceled as the cause, whether or not the
// client's context ends later; children derived then are born ended; the
// decision is still found. And a handler polling Done from several
// goroutines while the client cancels the call sees the client's end.
func TestRedTeamCtx_ContextAfterReturnAndClientCancel(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: ctx}
spec:
  allowed_tools: [keep, spin]
`
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{HandlerTimeout: time.Hour})
	s := mcp.NewServer(&mcp.Implementation{Name: "ctx", Version: "1"}, nil)
	kept := make(chan context.Context, 1)
	mcp.AddTool(s, &mcp.Tool{Name: "keep"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		kid, cancel := context.WithCancel(ctx)
		context.AfterFunc(kid, cancel)
		kept <- kid
		return &mcp.CallToolResult{}, nil, nil
	})
	spun := make(chan error, 1)
	started := make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "spin"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, any, error) {
		close(started)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-ctx.Done():
						return
					default:
					}
					_ = ctx.Err()
				}
			})
		}
		wg.Wait()
		if !errors.Is(ctx.Err(), context.Canceled) {
			spun <- errors.New("the client's cancellation shows as " + ctx.Err().Error())
		} else {
			spun <- nil
		}
		return nil, nil, ctx.Err()
	})
	g.Install(s)
	cs, done := connectClient(s, nil)
	defer done()
	cctx, ccancel := context.WithCancel(context.Background())
	if _, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "keep", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	kid := <-kept
	ccancel()
	select {
	case <-kid.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a context derived in the handler did not end once it returned")
	}
	if kid.Err() != context.Canceled || context.Cause(kid) != context.Canceled {
		t.Fatalf("after the return: %v, cause %v; want Canceled", kid.Err(), context.Cause(kid))
	}
	late, cancel := context.WithTimeout(kid, time.Hour)
	defer cancel()
	if late.Err() != context.Canceled {
		t.Fatalf("a context derived after the return: %v", late.Err())
	}
	if _, ok := gatehouse.DecisionFrom(late); !ok {
		t.Fatal("the decision is lost after the return")
	}

	cctx, ccancel = context.WithCancel(context.Background())
	defer ccancel()
	go func() { <-started; ccancel() }()
	_, _ = cs.CallTool(cctx, &mcp.CallToolParams{Name: "spin", Arguments: map[string]any{}})
	select {
	case err := <-spun:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a handler polling its context did not see the client's cancellation")
	}
}
