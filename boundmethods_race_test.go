package gatehouse_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// A content method's handler that panics (or calls Goexit) just as
// HandlerTimeout strikes is refused once and audited once: the timeout
// and the handler's goroutine both saw the request unanswered, and each
// audited its own refusal of it. Handlers here wait for their context to
// end and then fail, or fail at once (their goroutine ended the context
// it shares with the timeout before its answer was sent), so the two race
// on every request.
func TestContentMethodTimeoutRacingPanicAuditedOnce(t *testing.T) {
	for _, tc := range []struct {
		end  string
		wait bool // for the timeout; else at once
	}{{"panic", true}, {"goexit", true}, {"panic", false}, {"goexit", false}} {
		end, wait := tc.end, tc.wait
		t.Run(fmt.Sprint(end, "/wait=", wait), func(t *testing.T) {
			timeout := time.Minute
			if wait {
				timeout = time.Millisecond
			}
			log := &syncBuffer{}
			w, err := audit.New(log, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := mustGuard(t, mustPolicy(t, resourcesPolicy), &gatehouse.Options{Audit: w, HandlerTimeout: timeout})
			ct := serve(t, g, func(s *mcp.Server) {
				s.AddResource(&mcp.Resource{URI: "mem://late", Name: "late"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					if wait {
						<-ctx.Done() // HandlerTimeout's
					}
					if end == "goexit" {
						runtime.Goexit()
					}
					panic("resource bug at the deadline")
				})
			})
			c := dialRaw(t, ct, "2025-06-18")
			const n = 150
			for i := range n {
				res := c.request(i+1, "resources/read", map[string]any{"uri": "mem://late"})
				if got := fmt.Sprint(rpcErr(res)["code"]); got != "-32603" {
					t.Fatalf("request %d: code %s, want -32603: %.300v", i, got, res)
				}
			}
			// A second audit of a request comes from its handler's
			// goroutine, after the answer: wait for the log to settle.
			var got int
			for prev, deadline := -1, time.Now().Add(5*time.Second); time.Now().Before(deadline); prev = got {
				time.Sleep(100 * time.Millisecond)
				if got = strings.Count(log.String(), `"error_code":-32603`); got == prev {
					break
				}
			}
			if got != n {
				t.Fatalf("%d failures audited for %d refused requests, want one each", got, n)
			}
			// A handler that failed before the timeout is on record for
			// what it did, not as a timeout.
			if !wait && strings.Contains(log.String(), "did not finish within") {
				t.Fatalf("a handler that failed at once was audited as timed out:\n%.600s", log.String())
			}
		})
	}
}
