package gatehouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// guard is the README's hand-written middleware: until gatehouse.Install
// lands, this is how a go-sdk server puts policy.Evaluate in front of every
// request.
func guard(p *policy.Policy) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r := policy.Request{Method: method}
			if call, ok := req.(*mcp.CallToolRequest); ok {
				r.Tool = call.Params.Name
				dec := json.NewDecoder(bytes.NewReader(call.Params.Arguments))
				dec.UseNumber()
				if err := dec.Decode(&r.Args); err != nil && len(call.Params.Arguments) > 0 {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments must be a JSON object"}
				}
			}
			d := p.Evaluate(r)
			if d.Outcome == policy.Ask {
				d = d.Denied(false) // no human to ask in this sketch: fail closed
			}
			if d.Outcome != policy.Allow {
				data, _ := json.Marshal(map[string]string{"tool": d.Tool, "reason": d.Reason})
				return nil, &jsonrpc.Error{Code: int64(d.Code), Message: d.Message, Data: data}
			}
			return next(ctx, method, req)
		}
	}
}

// A go-sdk server guarded by a policy, called by a client in the same process.
func Example_guardAServer() {
	p, err := policy.Parse([]byte(`
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: example}
spec:
  allowed_tools: [greet]
  tool_rules: [{tool: wipe_disk, action: ask}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	for _, name := range []string{"greet", "wipe_disk", "exfiltrate"} {
		mcp.AddTool(server, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + req.Params.Name}}}, nil, nil
		})
	}
	server.AddReceivingMiddleware(guard(p))

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	for _, name := range []string{"greet", "exfiltrate", "ＥＸＦＩＬ\u200bＴＲＡＴＥ"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"who": "world"}})
		if err != nil {
			fmt.Printf("%+q: %v\n", name, err)
			continue
		}
		fmt.Printf("%+q: %s\n", name, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// "greet": ran greet
	// "exfiltrate": calling "tools/call": Forbidden
	// "\uff25\uff38\uff26\uff29\uff2c\u200b\uff34\uff32\uff21\uff34\uff25": calling "tools/call": Forbidden
}
