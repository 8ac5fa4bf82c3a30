package gatehouse_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// Red team of the late answers (rtg): a call AddTool's wrapper committed
// in the handler (after the user's approval) is answered by HandlerTimeout
// like any other, but only a call still running was marked abandoned, so
// when its handler then panicked (or ended with Goexit) the panic was
// audited too: two refusals on record for one call.
func TestRedTeamRTG_CommittedCallPanicsPastTimeout(t *testing.T) {
	for _, end := range []string{"panic", "goexit"} {
		t.Run(end, func(t *testing.T) {
			var log syncBuffer
			w, err := audit.New(&log, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := mustGuard(t, mustPolicy(t, askWipePolicy), &gatehouse.Options{Audit: w, HandlerTimeout: 100 * time.Millisecond})
			s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
			done := make(chan struct{})
			gatehouse.AddTool(s, g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
				defer close(done)
				time.Sleep(300 * time.Millisecond)
				if end == "panic" {
					panic("handler bug")
				}
				runtime.Goexit()
				return nil, nil, nil
			})
			g.Install(s)
			_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				},
			}, "2025-06-18")
			cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{}})
			<-done
			time.Sleep(100 * time.Millisecond) // the handler's goroutine's late work
			var refusals []string
			for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
				if strings.Contains(l, `"tools/call"`) && !strings.Contains(l, `"decision":"ASK"`) && !strings.Contains(l, `"decision":"ALLOW"`) {
					refusals = append(refusals, l)
				}
			}
			if len(refusals) != 1 {
				t.Errorf("%d refusals audited for one call, want 1:\n%s", len(refusals), strings.Join(refusals, "\n"))
			}
		})
	}
}
