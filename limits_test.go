package gatehouse_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

func conv(id string, step int) map[string]any {
	return map[string]any{"conversation_id": id, "step_number": step}
}

// TestConversationGuard: QWED §9 context is required, replays and loops are
// refused, and a denied step is released so it can be retried.
func TestConversationGuard(t *testing.T) {
	cg, err := ratelimit.NewGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, basePolicy, &gatehouse.Options{Limits: &gatehouse.LimitOptions{Conversations: cg}})
	c := dialRaw(t, f.ct, "2025-06-18")
	call := func(id any, tool string, args map[string]any, meta map[string]any) map[string]any {
		p := map[string]any{"name": tool, "arguments": args}
		if meta != nil {
			p["_meta"] = meta
		}
		return c.request(id, "tools/call", p)
	}
	expect := func(res map[string]any, code, reason string) {
		t.Helper()
		e := rpcErr(res)
		if code == "" {
			if e != nil {
				t.Fatalf("want success: %v", res)
			}
			return
		}
		if fmt.Sprint(e["code"]) != code || !strings.Contains(fmt.Sprint(e["data"]), reason) {
			t.Fatalf("want %s %s: %v", code, reason, res)
		}
	}
	expect(call(1, "echo", map[string]any{"n": 1}, nil), "-32001", "QWED-AGENT-CTX-001")
	expect(call(2, "echo", map[string]any{"n": 1}, conv("c1", 1)), "", "")
	expect(call(3, "echo", map[string]any{"n": 2}, conv("c1", 1)), "-32001", "QWED-AGENT-LOOP-002")
	// A policy denial releases the step: the same step then succeeds.
	expect(call(4, "unlisted", nil, conv("c1", 2)), "-32001", "Tool not in allowed_tools list")
	expect(call(5, "echo", map[string]any{"n": 2}, conv("c1", 2)), "", "")
	expect(call(6, "echo", map[string]any{"n": 9}, conv("c1", 3)), "", "")
	expect(call(7, "echo", map[string]any{"n": 9}, conv("c1", 4)), "", "")
	expect(call(8, "echo", map[string]any{"n": 9}, conv("c1", 5)), "-32001", "QWED-AGENT-LOOP-003")
	if f.runs.Load() != 4 {
		t.Errorf("runs %d, want 4", f.runs.Load())
	}
}

// TestBudget: checked before, charged after approval only, with the limit
// named in the denial.
func TestBudget(t *testing.T) {
	b, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 2}, &ratelimit.BudgetOptions{Now: func() time.Time { return time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, basePolicy, &gatehouse.Options{Limits: &gatehouse.LimitOptions{Budget: b}})
	c := dialRaw(t, f.ct, "2025-06-18")
	for i := range 3 {
		if res := c.callTool(100+i, "unlisted", nil); rpcErr(res) == nil {
			t.Fatal("unlisted tool ran")
		}
	}
	for i := range 2 {
		if res := c.callTool(i, "echo", nil); rpcErr(res) != nil {
			t.Fatalf("call %d within budget (denied calls are not charged): %v", i, res)
		}
	}
	res := c.callTool(3, "echo", nil)
	e := rpcErr(res)
	if fmt.Sprint(e["code"]) != "-32001" || !strings.Contains(fmt.Sprint(e["data"]), "requests_per_hour") || f.runs.Load() != 2 {
		t.Fatalf("over budget: %v runs=%d", res, f.runs.Load())
	}
}

// TestACPPolicyThroughTheGuard: an ACP rule list decides, its rate_limit is
// enforced after matching, its timeout bounds the ask.
func TestACPPolicyThroughTheGuard(t *testing.T) {
	src := `version: "1"
default_action: deny
rules:
  - match: {tool: "echo"}
    action: allow
    rate_limit: 1/minute
  - match: {tool: "deploy"}
    action: ask
    timeout: 1
  - match: {category: system}
    action: deny
`
	asked := make(chan gatehouse.AskRequest, 1)
	f := newFixture(t, src, &gatehouse.Options{Ask: &gatehouse.AskOptions{Timeout: time.Hour, Asker: gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		asked <- r
		<-ctx.Done()
		return gatehouse.Answer{}, ctx.Err()
	})}})
	c := dialRaw(t, f.ct, "2025-06-18")
	if res := c.callTool(1, "echo", nil); rpcErr(res) != nil {
		t.Fatal(res)
	}
	if e := rpcErr(c.callTool(2, "echo", nil)); fmt.Sprint(e["code"]) != "-32002" {
		t.Fatalf("ACP rate_limit: %v", e)
	}
	start := time.Now()
	e := rpcErr(c.callTool(3, "deploy", map[string]any{"env": "x"}))
	if fmt.Sprint(e["code"]) != "-32005" || time.Since(start) > 30*time.Second {
		t.Fatalf("ACP timeout: %v after %v", e, time.Since(start))
	}
	if r := <-asked; r.ACPRule != "rules[1]" || r.Risk != "high" {
		t.Errorf("ask request: %+v", r)
	}
	if e := rpcErr(c.callTool(4, "unlisted", nil)); fmt.Sprint(e["code"]) != "-32001" || !strings.Contains(fmt.Sprint(e["data"]), "default_action") {
		t.Fatalf("default deny: %v", e)
	}
}
