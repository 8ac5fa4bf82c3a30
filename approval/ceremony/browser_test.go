package ceremony_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
	"github.com/gatehouse-dev/gatehouse/internal/browsertest"
)

// TestBrowserEnrollAndApprove: a real Chromium enrolls a passkey through
// the page and approves a tools/call end to end, over MCP, against the
// server; the approval page shows displayText verbatim as text.
func TestBrowserEnrollAndApprove(t *testing.T) {
	tab := browsertest.Tab(t)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://localhost:%d", l.Addr().(*net.TCPAddr).Port)

	// The page drives the browser: every ceremony URL is opened in the tab,
	// checked, and approved with a click.
	visits := make(chan browsertest.Visit, 4)
	bridge, err := ceremony.New(&ceremony.Options{BaseURL: base, Open: func(_ context.Context, url string) error {
		go func() {
			visits <- browsertest.Approve(tab, url)
		}()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: bridge, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })

	// The MCP server: gate with RP ID localhost and the bridge's origin.
	gate, err := approval.New(approval.Config{ServerID: "urn:uuid:browser-test-7f1c", RPID: "localhost", Origins: []string{base}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	asrv, _ := approvalmcp.New(gate, nil)
	caps := &mcp.ServerCapabilities{}
	approvalmcp.AddCapability(caps)
	server := mcp.NewServer(&mcp.Implementation{Name: "browser-test", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	if err := asrv.Register(server); err != nil {
		t.Fatal(err)
	}
	const displayText = `Delete <img src=x onerror="document.title='pwned'"><b>everything</b> in "prod"` + "\n  & keep nothing"
	tool := &mcp.Tool{Name: "delete_file"}
	_ = asrv.Require(tool, approval.ToolPolicy{Describe: func(string, json.RawMessage) (string, error) { return displayText, nil }})
	var runs atomic.Int32
	mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.CallToolRequest, a struct {
		Path string `json:"path"`
	}) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted " + a.Path}}}, nil, nil
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx = approvalmcp.WithUser(ctx, approval.NewUser("agent-browser"))
			if call, ok := req.(*mcp.CallToolRequest); ok && gate.Requires(call.Params.Name) {
				if _, err := asrv.VerifyCall(ctx, call); err != nil {
					return nil, approvalmcp.RPCError(err)
				}
			}
			return next(ctx, method, req)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "v0"}, nil)
	ac, err := approvalclient.New(client, bridge, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	enr, err := ac.Enroll(ctx, cs)
	if err != nil {
		t.Fatalf("enroll through the browser: %v", err)
	}
	if v := <-visits; v.Err != nil || v.Title != "Enroll a passkey for approvals" || v.State != "done" {
		t.Fatalf("enrollment page: %+v", v)
	}
	t.Logf("enrolled credential %s", enr.CredentialID)

	res, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "/srv/prod"}})
	if err != nil {
		t.Fatalf("approved call: %v", err)
	}
	v := <-visits
	if v.Err != nil || v.Title != "Approve this action" || v.State != "done" {
		t.Fatalf("approval page: %+v", v)
	}
	if v.DisplayText != displayText {
		t.Fatalf("page shows %q, want displayText verbatim %q", v.DisplayText, displayText)
	}
	if v.HasMarkup {
		t.Fatal("displayText was parsed as HTML")
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "deleted /srv/prod" || runs.Load() != 1 {
		t.Fatalf("result %q, %d runs", got, runs.Load())
	}
	if title, _ := chromedp.Run(tab, chromedp.Title()); strings.Contains(title, "pwned") {
		t.Fatal("script in displayText ran")
	}
}
