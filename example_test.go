package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
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

// Require a passkey for a tool (SEP-2672): the README's snippet, with a
// software authenticator (approval/approvaltest, test-only) in place of the
// user's passkey. TestREADMEPasskeySnippet keeps the README in step.
func Example_requirePasskey() {
	ctx := context.Background()
	p, err := policy.Parse([]byte(`{apiVersion: aip.io/v1alpha1, kind: AgentPolicy, metadata: {name: passkey}, spec: {allowed_tools: [delete_file]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "passkeys")
	defer os.RemoveAll(dir)
	credentialsFile := filepath.Join(dir, "passkeys.json")

	fileStore, err := approval.OpenFileCredentialStore(credentialsFile, nil) // enrolled passkeys survive restarts
	if err != nil {
		fmt.Println(err)
		return
	}
	gate, err := approval.New(approval.Config{
		ServerID: "urn:uuid:3f1e9f0e-7b55-4c1a-9d2e-5b8f6a1c2d3e", // unique and stable (SEP-2672 §4.6)
		RPID:     "localhost", Origins: []string{"http://localhost:8787"},
	}, &approval.Options{Credentials: fileStore})
	if err != nil {
		fmt.Println(err)
		return
	}
	passkeys, err := approvalmcp.New(gate, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Over stdio the transport is the authentication; over HTTP leave this
	// false and authenticate agents with bearer tokens.
	guard, err := gatehouse.New(p, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: passkeys, ForUnauthenticated: true}})
	if err != nil {
		fmt.Println(err)
		return
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
	del := &mcp.Tool{Name: "delete_file"}
	describeDelete := func(_ string, args json.RawMessage) (string, error) {
		var a struct {
			Path string `json:"path"`
		}
		// Decode as the handler will: never with encoding/json, which
		// matches "PATH" to the field too and takes the last such member.
		if err := approval.DecodeArguments(args, &a); err != nil || a.Path == "" {
			return "", fmt.Errorf("no path")
		}
		return "Delete the file " + a.Path, nil
	}
	deleteFile := func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Path string `json:"path"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + in.Path}}}, nil, nil
	}
	err = passkeys.Require(del, approval.ToolPolicy{Describe: describeDelete}) // the text the user signs for
	if err != nil {
		fmt.Println(err)
		return
	}
	mcp.AddTool(server, del, deleteFile)
	guard.Install(server) // approval/* methods, the capability, evidence checked on every call

	// The agent's side: a go-sdk client with approvalclient.
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	authn := approvaltest.New("http://localhost:8787", nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	ac, _ := approvalclient.New(client, authn, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	args := map[string]any{"path": "report.txt"}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file", Arguments: args}); err != nil {
		fmt.Println("without a passkey:", err)
	}
	if _, err := ac.Enroll(ctx, cs); err != nil {
		fmt.Println(err)
		return
	}
	res, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: args})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the user saw:", authn.Prompts())
	fmt.Println("with a passkey:", res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// without a passkey: calling "tools/call": Verified approval is required for this tool
	// the user saw: [Delete the file report.txt]
	// with a passkey: deleted report.txt
}
