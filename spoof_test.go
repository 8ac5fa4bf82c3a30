package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
)

// TestCaseFoldedArgumentsRefusedBeforeApproval (fault 1), end to end through
// a real go-sdk client, approvalclient and the guard: arguments whose member
// names are equal under case folding ({"path":"/etc/passwd","PATH":
// "/tmp/junk"}) are refused before any passkey prompt, so the user can
// never approve one file while the handler deletes another, even with a
// Describe function that decodes with encoding/json (the attack's).
func TestCaseFoldedArgumentsRefusedBeforeApproval(t *testing.T) {
	_, srv := newApprovalServer(t, nil)
	g := mustGuard(t, mustPolicy(t, approvalPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true}})
	var mu sync.Mutex
	var deleted []string
	ct := serve(t, g, func(s *mcp.Server) {
		del := &mcp.Tool{Name: "delete_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"kind":{"type":"string"}}}`)}
		describe := func(_ string, args json.RawMessage) (string, error) {
			var a struct{ Path string } // encoding/json: case-insensitive, last wins
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			return "Delete the file " + a.Path, nil
		}
		if err := srv.Require(del, approval.ToolPolicy{Describe: describe}); err != nil {
			t.Fatal(err)
		}
		mcp.AddTool(s, del, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			deleted = append(deleted, in.Path)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
		})
	})
	ac, cs, auth := approvalClient(t, ct)
	ctx := context.Background()
	if _, err := ac.Enroll(ctx, cs); err != nil {
		t.Fatal(err)
	}
	// The setup works: a plain call is described, approved and run.
	if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "/tmp/junk"}}); err != nil {
		t.Fatalf("plain call: %v", err)
	}
	if p := auth.Prompts(); len(p) != 1 || !strings.Contains(p[0], "/tmp/junk") || len(deleted) != 1 || deleted[0] != "/tmp/junk" {
		t.Fatalf("plain call: prompts %q, deleted %q", p, deleted)
	}
	for _, args := range []json.RawMessage{
		json.RawMessage(`{"path":"/etc/passwd","PATH":"/tmp/junk"}`),
		json.RawMessage(`{"PATH":"/tmp/junk","path":"/etc/passwd"}`),
		json.RawMessage(`{"path":"/etc/passwd","Path":"/tmp/junk"}`),
		json.RawMessage(`{"path":"/etc/passwd","kind":"a","\u212aind":"b"}`), // KELVIN SIGN
		json.RawMessage(`{"path":"/etc/passwd","kind":"a","KIND":"b"}`),
		json.RawMessage(`{"path":"/etc/passwd","opts":{"s":1,"\u017f":2}}`), // LONG S, nested
		json.RawMessage(`{"path":"/etc/passwd","list":[{"k":1,"\u212a":2}]}`),
	} {
		_, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: args})
		if err == nil {
			t.Errorf("%s: approved and run", args)
		}
		if p := auth.Prompts(); len(p) != 1 {
			t.Errorf("%s: the user was prompted: %q", args, p[1:])
		}
	}
	// Near misses: names that differ by more than case still work.
	for _, args := range []map[string]any{{"path": "/tmp/a", "paths": "x"}, {"path": "/tmp/b", "p\u0430th": "cyrillic a"}} {
		if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: args}); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(deleted, " ") != "/tmp/junk /tmp/a /tmp/b" {
		t.Fatalf("deleted %q", deleted)
	}
}
