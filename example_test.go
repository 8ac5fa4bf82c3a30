package gatehouse_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const examplePolicy = `
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: example}
spec:
  allowed_tools: [greet]
  tool_rules: [{tool: wipe_disk, action: ask}]
  dlp:
    patterns: [{name: AWS Key, regex: "AKIA[0-9A-Z]{16}"}]
`

type greetIn struct {
	Who string `json:"who"`
}

// connectClient connects a go-sdk client to s over in-memory transports.
func connectClient(s *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, func()) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	return cs, func() { cs.Close(); ss.Close() }
}

// Guard an existing go-sdk server: one Install call, and every request goes
// through the policy, limits, DLP and (when configured) the audit log.
func ExampleGuard_Install() {
	p, err := policy.Parse([]byte(examplePolicy))
	if err != nil {
		fmt.Println(err)
		return
	}
	guard, err := gatehouse.New(p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	for _, name := range []string{"greet", "exfiltrate"} {
		mcp.AddTool(server, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Who + ", key AKIA" + "IOSFODNN7EXAMPLE"}}}, nil, nil
		})
	}
	guard.Install(server)

	cs, done := connectClient(server, nil)
	defer done()
	for _, name := range []string{"greet", "exfiltrate", "ＥＸＦＩＬ\u200bＴＲＡＴＥ"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"who": "world"}})
		if err != nil {
			fmt.Printf("%+q: %v\n", name, err)
			continue
		}
		fmt.Printf("%+q: %s\n", name, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// "greet": hello world, key [REDACTED:AWS Key]
	// "exfiltrate": calling "tools/call": Forbidden
	// "\uff25\uff38\uff26\uff29\uff2c\u200b\uff34\uff32\uff21\uff34\uff25": calling "tools/call": Forbidden
}

// A tool whose "ask" decisions are answered by the user through MCP
// elicitation: the client shows the question, the tool runs on "yes".
func ExampleAddTool() {
	p, err := policy.Parse([]byte(examplePolicy))
	if err != nil {
		fmt.Println(err)
		return
	}
	guard, err := gatehouse.New(p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	gatehouse.AddTool(server, guard, &mcp.Tool{Name: "wipe_disk"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil, nil
	})
	guard.Install(server)

	cs, done := connectClient(server, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("the user is asked:", req.Params.Message[:strings.Index(req.Params.Message, "?")+1])
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	defer done()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wipe_disk", Arguments: map[string]any{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// the user is asked: Allow the agent "client:agent" to call the tool "wipe_disk" with these arguments?
	// wiped
}
