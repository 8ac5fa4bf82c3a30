package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// The policy decides on the arguments the handler receives: go-sdk's typed
// tools fill in input-schema defaults before the handler runs, so {} to a
// read tool whose path defaults to a protected file reads it. Before the
// defaulted arguments were evaluated it ran (the protected-path check saw
// no path). allow_args already refused an argument left out.
func TestPolicyHoldsForSchemaDefaults(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: defaults}
spec:
  allowed_tools: [deploy, read_file, publish]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: deploy
      allow_args:
        env: "^(dev|staging)$"
`
	type in struct {
		Env  string `json:"env,omitempty"`
		Path string `json:"path,omitempty"`
	}
	var mu sync.Mutex
	var ran []string
	handler := func(name string) mcp.ToolHandlerFor[in, any] {
		return func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			ran = append(ran, name+":"+a.Env+a.Path)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
		}
	}
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{DenyAsToolResult: true}) // the reason reaches the client
	s := mcp.NewServer(&mcp.Implementation{Name: "defaults", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string","default":"prod"}}}`)}, handler("deploy"))
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","default":"~/.ssh/id_rsa"}}}`)}, handler("read_file"))
	mcp.AddTool(s, &mcp.Tool{Name: "publish", InputSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string","default":"prod"}}}`)}, handler("publish"))
	g.Install(s)
	cs, done := connectClient(s, nil)
	defer done()
	call := func(tool string, args map[string]any) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // error text, "" for a run
	}{
		{"read_file", map[string]any{}, "input-schema defaults"},
		{"read_file", nil, "input-schema defaults"},
		// allow_args already refuses an argument left out.
		{"deploy", map[string]any{}, "missing"},
		// Near misses: an explicit allowed value, and a tool the policy
		// allows whatever its defaults are.
		{"deploy", map[string]any{"env": "staging"}, ""},
		{"read_file", map[string]any{"path": "/tmp/notes.txt"}, ""},
		{"publish", map[string]any{}, ""},
	} {
		res, err := call(c.tool, c.args)
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		text := ""
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		switch {
		case c.want == "" && res.IsError:
			t.Errorf("%s %v: %q; want it to run", c.tool, c.args, text)
		case c.want != "" && (!res.IsError || !strings.Contains(text, c.want)):
			t.Errorf("%s %v: %q; want refused with %q", c.tool, c.args, text, c.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(ran, ","); got != "deploy:staging,read_file:/tmp/notes.txt,publish:prod" {
		t.Errorf("handlers ran %q", got)
	}
}
