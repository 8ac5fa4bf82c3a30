package gatehouse_test

import (
	"context"
	"encoding/json"
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
