// Command minimal is a complete guarded MCP server: two tools, a policy that
// allows one of them with checked arguments, an audit log, over stdio.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const agentPolicy = `
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: minimal}
spec:
  allowed_tools: [greet]          # wipe_disk is not listed: every call is refused
  tool_rules:
    - tool: greet
      strict_args: true
      allow_args: {name: "^[A-Za-z ]{1,40}$"}
`

type greetIn struct {
	Name string `json:"name"`
}

func main() {
	p, err := policy.Parse([]byte(agentPolicy)) // or policy.Load("policy.yaml")
	if err != nil {
		log.Fatal(err)
	}
	auditLog, err := audit.Open("audit.jsonl", nil) // hash-chained; audit.VerifyFiles checks it
	if err != nil {
		log.Fatal(err)
	}
	defer auditLog.Close()
	guard, err := gatehouse.New(p, &gatehouse.Options{Audit: auditLog, DenyAsToolResult: true})
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "minimal", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Say hello."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "wipe_disk", Description: "Never runs."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			panic("the policy refuses wipe_disk")
		})
	guard.Install(server) // last: after any middleware of your own
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
