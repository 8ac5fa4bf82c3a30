package gatehouse_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const grantsExamplePolicy = `
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: example}
spec:
  tool_rules: [{tool: deploy, action: ask, allow_args: {env: "^(staging|prod)$"}}]
`

type deployIn struct {
	Env string `json:"env"`
}

// Remember an approval: the human who approves deploy {env: staging} may
// choose "15m-3", and the next three such calls in fifteen minutes run
// without asking; the fourth asks again.
func Example_grants() {
	p, _ := policy.Parse([]byte(grantsExamplePolicy))
	asker := gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		fmt.Printf("asked: %s %v, may remember %q: %s\n", r.Tool, r.Args, r.Scopes[0].ID, r.Scopes[0].Describe())
		return gatehouse.Answer{Approved: true, Attestation: "human", Scope: "15m-3"}, nil // the human's choice
	})
	guard, err := gatehouse.New(p, &gatehouse.Options{
		Ask: &gatehouse.AskOptions{Asker: asker},
		Grants: &gatehouse.GrantOptions{
			Offers: map[string][]grant.Scope{
				"deploy": {{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}}, // or Session: true, Patterns: true
			},
			ForUnauthenticated: true, // stdio: the transport is the authentication; over HTTP, bearer-token users
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, in deployIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to " + in.Env}}}, nil, nil
	})
	guard.Install(server)

	cs, done := connectClient(server, nil)
	defer done()
	for range 5 {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	grants, _ := guard.Grants(context.Background(), gatehouse.LocalGrantPrincipal())
	fmt.Println("live grants:", len(grants))
	// Output:
	// asked: deploy map[env:staging], may remember "15m-3": for 15m0s, up to 3 calls, with exactly these arguments
	// deployed to staging
	// deployed to staging
	// deployed to staging
	// deployed to staging
	// asked: deploy map[env:staging], may remember "15m-3": for 15m0s, up to 3 calls, with exactly these arguments
	// deployed to staging
	// live grants: 1
}

// TestREADMEGrantsSnippet: every code line of the README's grants snippet
// is a line of Example_grants, which runs.
func TestREADMEGrantsSnippet(t *testing.T) {
	snippet := goSnippet(t, readmeSection(t, "## Remember an approval (grants)\n\n```go\n"))
	_, body, _ := strings.Cut(readFile(t, "grants_example_test.go"), "func Example_grants() {")
	snippetInExample(t, snippet, body, "Example_grants", 8)
}
