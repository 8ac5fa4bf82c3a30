package gatehouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// A call to a tool the server hides from the session's tools/list (yet
// dispatches) is refused before anything is spent: nobody is asked, no
// budget is charged, and the log holds one refusal, not an ALLOW followed
// by a failure. A listed tool with the same rule (near miss) is asked,
// charged and run.
func TestUnlistedToolRefusedBeforeAskAndCharge(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: unlisted}
spec:
  allowed_tools: [hidden, shown]
  tool_rules:
    - {tool: hidden, action: ask}
    - {tool: shown, action: ask}
`
	var asked atomic.Int32
	asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
		asked.Add(1)
		return gatehouse.Answer{Approved: true}, nil
	})
	budget, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 1}, nil) // one call: the refused one must not take it
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, err := audit.Open(filepath.Join(dir, "audit.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{Audit: w, Ask: &gatehouse.AskOptions{Asker: asker},
		Limits: &gatehouse.LimitOptions{Budget: budget}})
	s := mcp.NewServer(&mcp.Implementation{Name: "unlisted", Version: "1"}, nil)
	var runs atomic.Int32
	h := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "hidden", InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	mcp.AddTool(s, &mcp.Tool{Name: "shown", InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	hideFromListing(s, "hidden") // listed to no one, still dispatched
	g.Install(s)
	cs, done := connectClient(s, nil)
	defer done()

	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hidden", Arguments: map[string]any{}}); err == nil {
		t.Fatal("the hidden tool's call was not refused")
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the human was asked %d times about a call that was then refused", n)
	}
	if n := runs.Load(); n != 0 {
		t.Errorf("the hidden tool's handler ran %d times", n)
	}
	// Near miss: the listed tool under the same rule is asked, charged (the
	// budget's one call is still there) and run.
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shown", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("the listed tool: %v %v", res, err)
	}
	if asked.Load() != 1 || runs.Load() != 1 {
		t.Fatalf("the listed tool: asked %d, ran %d; want 1 and 1", asked.Load(), runs.Load())
	}

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	refusals := 0
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var e audit.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		if e.Tool != "hidden" {
			continue
		}
		if e.Decision == "ALLOW" {
			t.Errorf("the log records the refused call as allowed: %s", line)
		}
		if e.Decision == "BLOCK" && strings.Contains(fmt.Sprint(e.Metadata["reason"]), "tools/list") {
			refusals++
		}
	}
	if refusals != 1 {
		t.Errorf("the log holds %d refusals naming the tools/list, want 1:\n%s", refusals, raw)
	}

}
