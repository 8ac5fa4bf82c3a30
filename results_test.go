package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// TestDLPEveryContentKind: secrets are redacted in text, structured content,
// embedded resources, resource links, resources/read and prompts/get
// results, and the handler's own values are left untouched (DESIGN §3 item 8).
func TestDLPEveryContentKind(t *testing.T) {
	var log strings.Builder
	w, _ := audit.New(&log, nil)
	p := mustPolicy(t, strings.Replace(basePolicy, "allowed_tools: [echo, boom, secret, list_me]", "allowed_tools: [leak]\n  allowed_methods: ['*']", 1))
	g := mustGuard(t, p, &gatehouse.Options{Audit: w})
	shared := &mcp.TextContent{Text: "key " + fakeKey}
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{
				Content: []mcp.Content{
					shared,
					&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///k", Text: "aws=" + fakeKey, Blob: nil}},
					&mcp.ResourceLink{URI: "https://x.example/?k=" + fakeKey, Name: "l"},
					&mcp.TextContent{Text: "clean"},
				},
				StructuredContent: map[string]any{"nested": []any{map[string]any{fakeKey: "v " + fakeKey}}},
			}, nil
		})
		s.AddResource(&mcp.Resource{URI: "file:///creds", Name: "creds"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///creds", Text: fakeKey}, {URI: "file:///bin", Blob: []byte("b " + fakeKey)}}}, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: "p"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "d " + fakeKey, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "use " + fakeKey}}}}, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	for _, res := range []map[string]any{
		c.callTool(1, "leak", nil),
		c.request(2, "resources/read", map[string]any{"uri": "file:///creds"}),
		c.request(3, "prompts/get", map[string]any{"name": "p"}),
	} {
		raw, _ := json.Marshal(res)
		if rpcErr(res) != nil || strings.Contains(string(raw), fakeKey) || strings.Contains(string(raw), "SU9TRk9ETk43RVhBTVBMRQ") {
			t.Errorf("secret survived: %s", raw)
		}
		if !strings.Contains(string(raw), "[REDACTED:AWS Key]") {
			t.Errorf("no redaction marker: %s", raw)
		}
	}
	if shared.Text != "key "+fakeKey {
		t.Error("the handler's content value was mutated")
	}
	if strings.Contains(log.String(), fakeKey) {
		t.Error("the secret reached the audit log")
	}
	counts := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var e map[string]any
		json.Unmarshal([]byte(line), &e)
		if e["event"] == "DLP_TRIGGERED" {
			if e["direction"] != "downstream" || e["dlp_rule"] != "AWS Key" || e["dlp_action"] != "REDACTED" {
				t.Errorf("dlp event %v", e)
			}
			counts[fmt.Sprint(e["method"])] += e["dlp_match_count"].(float64)
		}
	}
	if counts["tools/call"] != 5 || counts["resources/read"] != 2 || counts["prompts/get"] != 2 {
		t.Errorf("dlp match counts per method: %v", counts)
	}
}

// TestToolsListHidesNeverAllowed: tools the policy can never allow are
// hidden; calls to them are still denied; the server's tools are not changed.
func TestToolsListHidesNeverAllowed(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.request(1, "tools/list", map[string]any{})
	r, _ := res["result"].(map[string]any)
	var names []string
	for _, tl := range r["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	got := strings.Join(names, ",")
	for _, hidden := range []string{"never", "unlisted"} {
		if strings.Contains(got, hidden) {
			t.Errorf("tools/list shows %s: %s", hidden, got)
		}
	}
	for _, shown := range []string{"echo", "limited", "deploy", "boom", "list_me"} {
		if !strings.Contains(got, shown) {
			t.Errorf("tools/list hides %s: %s", shown, got)
		}
	}
	if e := rpcErr(c.callTool(2, "never", nil)); fmt.Sprint(e["code"]) != "-32001" {
		t.Errorf("hidden tool callable: %v", e)
	}
	all := newFixture(t, basePolicy, &gatehouse.Options{ShowAllTools: true})
	res = dialRaw(t, all.ct, "2025-06-18").request(1, "tools/list", map[string]any{})
	if n := len(res["result"].(map[string]any)["tools"].([]any)); n != 7 {
		t.Errorf("ShowAllTools lists %d tools, want 7", n)
	}
}
