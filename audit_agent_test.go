package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// A client chooses its own name, and the Guard records it as the agent of
// every audit event: a token given as the name went into every line of
// the log (red team of the audit log). It is redacted like a value; an
// ordinary name is recorded as it is.
func TestAuditAgentNameRedacted(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	for _, tc := range []struct{ name, want string }{
		{"ci-" + token, "[REDACTED"},
		{"claude-desktop", `"agent":"client:claude-desktop"`}, // near miss
	} {
		log := &syncBuffer{}
		w, err := audit.New(log, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := mustGuard(t, mustPolicy(t, resourcesPolicy), &gatehouse.Options{Audit: w})
		ct := serve(t, g, func(s *mcp.Server) {
			s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		})
		cs, err := mcp.NewClient(&mcp.Implementation{Name: tc.name, Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "blocked"}); err == nil {
			t.Fatal("a tool the policy does not list ran")
		}
		cs.Close()
		got := log.String()
		if strings.Contains(strings.ToLower(got), strings.ToLower(token)) || !strings.Contains(got, tc.want) {
			t.Errorf("client %q: the audit log holds the name as\n%s", tc.name, got)
		}
	}
}
