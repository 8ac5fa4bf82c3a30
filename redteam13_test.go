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

// go-sdk's typed tools decode the arguments into float64 and encode them
// again before the handler decodes them, so a number whose decimal text the
// policy allows can reach the handler as another number:
// 999.99999999999999999 matches an amount pattern of at most three integer
// digits, and the handler receives 1000.
func TestRedTeam13_NumberRoundedForTypedHandler(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: numbers}
spec:
  allowed_tools: [transfer]
  tool_rules:
    - tool: transfer
      allow_args:
        amount: "^[0-9]{1,3}(\\.[0-9]+)?$"
`
	type in struct {
		Amount float64 `json:"amount"`
	}
	var mu sync.Mutex
	var got []float64
	g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{DenyAsToolResult: true})
	s := mcp.NewServer(&mcp.Implementation{Name: "numbers", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "transfer"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		mu.Lock()
		got = append(got, a.Amount)
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	})
	g.Install(s)
	cs, done := connectClient(s, nil)
	defer done()
	for _, c := range []struct {
		args string
		run  bool
	}{
		{`{"amount":999.99999999999999999}`, false}, // 1000 to the handler
		{`{"amount":999.9999999999999999999999999999}`, false},
		{`{"amount":99.999999999999999999}`, true}, // 100: still within the pattern
		{`{"amount":999.5}`, true},
		{`{"amount":1.50}`, true}, // another spelling of a value the pattern allows
		{`{"amount":0.1}`, true},  // not exact in binary, but 0.1 again when encoded
		{`{"amount":1000}`, false},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "transfer", Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		text := ""
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if ran := text == "ran"; ran != c.run {
			t.Errorf("%s: ran=%v (%q), want ran=%v", c.args, ran, text, c.run)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range got {
		if a >= 1000 {
			t.Errorf("the handler ran with amount %v, outside the policy's pattern", a)
		}
	}
}

// A server that hides a tool from a session's tools/list (a middleware
// inside the Guard's) while still dispatching calls to it: the Guard finds
// no definition, so no defaults, and {} ran the handler with a default path
// under a protected directory.
func TestRedTeam13_HiddenToolDefaults(t *testing.T) {
	runDefaultPaths(t, []*mcp.Tool{
		{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","default":"~/.ssh/id_rsa"}}}`)},
		{Name: "visible", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","default":"/tmp/x"}}}`)},
	}, map[string]bool{"read_file": false, "visible": true}, // near miss: listed, its default is not protected
		func(s *mcp.Server) { hideFromListing(s, "read_file") }) // listed to no one, still dispatched
}

// A raw input schema may spell its keywords with JSON escapes
// ("\u0064efault" is "default"): go-sdk applies that default all the same.
func TestRedTeam13_EscapedDefaultKeyword(t *testing.T) {
	runDefaultPaths(t, []*mcp.Tool{
		{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","\u0064efault":"~/.ssh/id_rsa"}}}`)},
		{Name: "near", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","\u0064efault":"/tmp/x"}}}`)},
	}, map[string]bool{"read_file": false, "near": true}, nil)
}

// runDefaultPaths serves tools whose input schemas default "path", under a
// policy that protects ~/.ssh, with pinning on and off (setup, if any,
// changes the server before the Guard is installed): each tool called with
// {} runs as run says, and no handler ever runs with a path under ~/.ssh.
func runDefaultPaths(t *testing.T, tools []*mcp.Tool, run map[string]bool, setup func(*mcp.Server)) {
	t.Helper()
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	src := "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: defaults}\nspec:\n  allowed_tools: [" +
		strings.Join(names, ", ") + "]\n  protected_paths: [~/.ssh]\n"
	type in struct {
		Path string `json:"path,omitempty"`
	}
	for _, pins := range []*gatehouse.PinOptions{nil, {Off: true}} {
		var mu sync.Mutex
		var ran []string
		h := func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			ran = append(ran, a.Path)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
		}
		g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{DenyAsToolResult: true, Pins: pins})
		s := mcp.NewServer(&mcp.Implementation{Name: "defaults", Version: "1"}, nil)
		for _, tl := range tools {
			mcp.AddTool(s, tl, h)
		}
		if setup != nil {
			setup(s)
		}
		g.Install(s)
		cs, done := connectClient(s, nil)
		for _, name := range names {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
			if ranIt := err == nil && !res.IsError; ranIt != run[name] {
				t.Errorf("pins %v: %s {}: ran=%v (err %v), want %v", pins, name, ranIt, err, run[name])
			}
		}
		done()
		mu.Lock()
		for _, p := range ran {
			if strings.Contains(p, ".ssh") {
				t.Errorf("pins %v: the handler ran with the protected default %q", pins, p)
			}
		}
		mu.Unlock()
	}
}
