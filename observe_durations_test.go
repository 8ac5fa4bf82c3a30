package gatehouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// TestObserverDurations: the durations an Observer is told are the time
// actually spent: each is at least the sleep inside it (an Asker, an audit
// Sink and a handler that each sleep a known time), nested ones fit inside
// the request's, and the request's fits inside the time the client waited.
func TestObserverDurations(t *testing.T) {
	const nap = 5 * time.Millisecond
	rec := &recorder{}
	sink := sinkFunc(func(_ context.Context, e *audit.Event) error {
		if e.Method == "tools/call" {
			time.Sleep(nap)
		}
		return nil
	})
	asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
		time.Sleep(nap)
		return gatehouse.Answer{Approved: true}, nil
	})
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Audit: sink, Observer: rec, Ask: &gatehouse.AskOptions{Asker: asker}})
	c := dialRaw(t, serve(t, g, func(s *mcp.Server) {
		textTool(s, "deploy", func(map[string]any) string { time.Sleep(2 * nap); return "ok" }, nil)
	}), "2025-06-18")
	start := time.Now()
	if res := c.callTool(1, "deploy", map[string]any{"env": "prod"}); rpcErr(res) != nil || resultText(res) != "ok" {
		t.Fatalf("%v", res)
	}
	waited := time.Since(start)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var d gatehouse.DecisionEvent
	var e gatehouse.RequestEnd
	for i := range rec.decisions {
		if rec.decisions[i].Method == "tools/call" {
			d = rec.decisions[i]
		}
	}
	for i := range rec.ends {
		if rec.ends[i].Method == "tools/call" {
			e = rec.ends[i]
		}
	}
	if len(rec.asks) != 1 || rec.asks[0].Duration < nap || rec.asks[0].Duration > d.Latency {
		t.Errorf("ask %+v, decision latency %v: want at least %v, within the decision's", rec.asks, d.Latency, nap)
	}
	var audited time.Duration
	for _, w := range rec.writes {
		if w.Decision == "ALLOW" {
			audited = w.Latency
		}
	}
	if audited < nap || audited > d.Latency {
		t.Errorf("audit write %v: want at least %v, within the decision's %v", audited, nap, d.Latency)
	}
	// The decision follows the ask and the audit write; the answer follows
	// the handler's sleep.
	if d.Outcome != "ALLOW" || d.Latency < 2*nap || d.Latency > e.Duration {
		t.Errorf("decision %+v: latency want at least %v, within the request's %v", d, 2*nap, e.Duration)
	}
	if e.Duration < 4*nap || e.Duration > waited {
		t.Errorf("request duration %v: want at least %v and at most the client's wait %v", e.Duration, 4*nap, waited)
	}
}
