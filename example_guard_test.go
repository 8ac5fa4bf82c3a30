package gatehouse_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// The README's guard snippet, whole: a policy file, an audit log whose
// arguments are redacted by the default DLP pack, an asker, denials the
// model can read, and the guard installed last.
func Example_guard() {
	dir, err := os.MkdirTemp("", "gatehouse-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cwd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		log.Fatal(err)
	}
	defer os.Chdir(cwd)
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(examplePolicy), 0o600); err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Who}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "wipe_disk"}, func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil, nil // runs only if the user says yes
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler { return next }) // your own middleware
	myConsentChannel := gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		return gatehouse.Answer{Approved: false, Reason: "not today"}, nil
	})

	p, err := policy.Load("policy.yaml") // strict: unknown fields, bad regexes and rates are errors with line:column
	if err != nil {
		log.Fatal(err)
	}
	auditLog, err := audit.Open("audit.jsonl", &audit.Options{Durability: audit.DurabilityGroup})
	if err != nil {
		log.Fatal(err)
	}
	defer auditLog.Close()
	guard, err := gatehouse.New(p, &gatehouse.Options{
		Audit:            auditLog,                                       // secrets in arguments are redacted before they are written
		Ask:              &gatehouse.AskOptions{Asker: myConsentChannel}, // who answers "ask" rules
		DenyAsToolResult: true,                                           // the model reads why a call was denied
		Logger:           slog.Default(),                                 // denied methods by name, store and audit failures
	})
	if err != nil {
		log.Fatal(err)
	}
	guard.Install(server) // last: after your own middleware (go-sdk wraps the handler as it is at that moment)

	cs, done := connectClient(server, nil)
	defer done()
	for _, name := range []string{"greet", "wipe_disk", "exfiltrate"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"who": "world"}})
		if err != nil {
			fmt.Println(name, "error:", err)
			continue
		}
		fmt.Println(name+":", res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// greet: hello world
	// wipe_disk: gatehouse: User denied: User denied the call: not today
	// exfiltrate: gatehouse: Forbidden: Tool not in allowed_tools list
}
