package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
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

// DenyAsToolResult holds for every refusal of a tools/call, also those
// made in the handler's goroutine: AddTool's declined approval (a JSON-RPC
// -32004 there reaches a go-sdk client as "connection closed", and the
// model never learns why) and a handler past HandlerTimeout.
func TestRedTeamRTE_DenyAsToolResultInHandler(t *testing.T) {
	for _, proto := range []string{"2025-06-18", newProtocol} {
		g := mustGuard(t, mustPolicy(t, askWipePolicy), &gatehouse.Options{DenyAsToolResult: true, HandlerTimeout: 100 * time.Millisecond})
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(300 * time.Millisecond)
			return &mcp.CallToolResult{}, nil
		})
		g.Install(s)
		_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			},
		}, proto)
		for tool, want := range map[string]string{"wipe": "User denied", "echo": "HandlerTimeout"} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
			if err != nil || res == nil || !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, want) {
				t.Errorf("%s %s: want a tool result saying %q, got res=%+v err=%v", proto, tool, want, res, err)
			}
		}
	}
}

// HandlerTimeout bounds the handlers of resources/read, prompts/get and
// completion/complete as it bounds a tool's: one that ignores its context
// is answered with -32603 after the timeout, audited; a panic in one
// denies and the server keeps serving.
func TestRedTeamRTE_HandlerTimeoutEveryContentMethod(t *testing.T) {
	var log syncBuffer
	w, err := audit.New(&log, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, resourcesPolicy), &gatehouse.Options{Audit: w, HandlerTimeout: 100 * time.Millisecond})
	block := make(chan struct{})
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddResource(&mcp.Resource{URI: "mem://slow", Name: "slow"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			<-block // ignores its context
			return &mcp.ReadResourceResult{}, nil
		})
		s.AddResource(&mcp.Resource{URI: "mem://boom", Name: "boom"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			panic("resource bug")
		})
		s.AddPrompt(&mcp.Prompt{Name: "slow"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			<-block
			return &mcp.GetPromptResult{}, nil
		})
		s.AddResource(&mcp.Resource{URI: "mem://ok", Name: "ok"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "mem://ok", Text: "fine"}}}, nil
		})
	})
	t.Cleanup(func() { close(block) }) // before the session closes (cleanups run last first)
	c := dialRaw(t, ct, "2025-06-18")
	for i, tc := range []struct {
		method string
		params map[string]any
		code   string
	}{
		{"resources/read", map[string]any{"uri": "mem://slow"}, "-32603"},
		{"prompts/get", map[string]any{"name": "slow"}, "-32603"},
		{"resources/read", map[string]any{"uri": "mem://boom"}, "-32603"},
		{"resources/read", map[string]any{"uri": "mem://ok"}, "<nil>"}, // near miss, and the server is still up
	} {
		start := time.Now()
		res := c.request(i+1, tc.method, tc.params)
		if got := fmt.Sprint(rpcErr(res)["code"]); got != tc.code || time.Since(start) > 5*time.Second {
			t.Errorf("%s %v: code %s after %v, want %s: %.300v", tc.method, tc.params, got, time.Since(start), tc.code, res)
		}
	}
	if n := strings.Count(log.String(), `"error_code":-32603`); n != 3 {
		t.Errorf("%d failures audited, want 3:\n%s", n, log.String())
	}
}
