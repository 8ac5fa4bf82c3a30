package gatehouse_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

const resourcesPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo]
  allowed_methods: [initialize, notifications/initialized, tools/list, tools/call, resources/read, resources/list, prompts/get, prompts/list]
`

// MaxResultBytes bounds a result before it is redacted: every result the
// Guard redacts, not only a tool's. A resource or prompt handler that
// returns more is withheld (-32603) before DLP copies it.
func TestRedTeamRTE_MaxResultBytesEveryMethod(t *testing.T) {
	big := strings.Repeat("x", 4096)
	g := mustGuard(t, mustPolicy(t, resourcesPolicy), &gatehouse.Options{MaxResultBytes: 1024})
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddResource(&mcp.Resource{URI: "mem://big", Name: "big"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://big", Text: big}}}, nil
		})
		s.AddResource(&mcp.Resource{URI: "mem://small", Name: "small"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://small", Text: "ok"}}}, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: "big"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: big}}}}, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i, tc := range []struct {
		method string
		params map[string]any
		code   string
	}{
		{"resources/read", map[string]any{"uri": "mem://big"}, "-32603"},
		{"prompts/get", map[string]any{"name": "big"}, "-32603"},
		{"resources/read", map[string]any{"uri": "mem://small"}, "<nil>"}, // near miss
	} {
		res := c.request(i+1, tc.method, tc.params)
		if got := fmt.Sprint(rpcErr(res)["code"]); got != tc.code {
			t.Errorf("%s %v: code %s, want %s: %.200v", tc.method, tc.params, got, tc.code, res)
		}
	}
}
