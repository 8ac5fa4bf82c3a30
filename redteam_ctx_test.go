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
