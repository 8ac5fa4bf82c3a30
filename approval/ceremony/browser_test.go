package ceremony_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/ceremony"
)

// chromium returns the browser binary, skipping the test when none is
// installed unless GATEHOUSE_INTEGRATION=require (then it fails).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "ceremony: no Chromium on PATH; install it (apt-get install chromium) to run the real-browser test"
	if os.Getenv("GATEHOUSE_INTEGRATION") == "require" {
		t.Fatalf("%s (GATEHOUSE_INTEGRATION=require)", msg)
	}
	t.Skip(msg)
	return ""
}

// browser starts headless Chromium with a CDP virtual authenticator (CTAP2,
// USB, user verification) in one tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tgt, webauthn.Enable, webauthn.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tgt, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
			Options: &webauthn.VirtualAuthenticatorOptions{
				Protocol: webauthn.AuthenticatorProtocolCtap2, Transport: webauthn.AuthenticatorTransportUsb,
				HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
			}})
		return err
	}))
	if err != nil {
		t.Fatalf("starting Chromium with a virtual authenticator: %v", err)
	}
	return ctx
}

// visit is what the browser saw on one ceremony page.
type visit struct {
	title, text string
	hasImg      bool
	err         error
}

// approveIn opens url in the tab, reads the page, and clicks approve.
func approveIn(tab context.Context, url string) (v visit) {
	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if v.err = chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#approve"))); v.err != nil {
		return v
	}
	if v.title, v.err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#title"))); v.err != nil {
		return v
	}
	if v.text, v.err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("display-text").textContent`)); v.err != nil {
		return v
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("img, b, script:not([src])").length`))
	if v.err = err; err != nil {
		return v
	}
	v.hasImg = n > 0
	v.err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS(`body[data-state="done"]`)))
	return v
}

// TestBrowserEnrollAndApprove: a real Chromium enrolls a passkey through
// the page and approves a tools/call end to end, over MCP, against the
// server; the approval page shows displayText verbatim as text.
func TestBrowserEnrollAndApprove(t *testing.T) {
	tab := browser(t)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://localhost:%d", l.Addr().(*net.TCPAddr).Port)

	// The page drives the browser: every ceremony URL is opened in the tab,
	// checked, and approved with a click.
	visits := make(chan visit, 4)
	bridge, err := ceremony.New(&ceremony.Options{BaseURL: base, Open: func(_ context.Context, url string) error {
		go func() {
			visits <- approveIn(tab, url)
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
	if v := <-visits; v.err != nil || v.title != "Enroll a passkey for approvals" {
		t.Fatalf("enrollment page: %+v", v)
	}
	t.Logf("enrolled credential %s", enr.CredentialID)

	res, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "/srv/prod"}})
	if err != nil {
		t.Fatalf("approved call: %v", err)
	}
	v := <-visits
	if v.err != nil || v.title != "Approve this action" {
		t.Fatalf("approval page: %+v", v)
	}
	if v.text != displayText {
		t.Fatalf("page shows %q, want displayText verbatim %q", v.text, displayText)
	}
	if v.hasImg {
		t.Fatal("displayText was parsed as HTML")
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "deleted /srv/prod" || runs.Load() != 1 {
		t.Fatalf("result %q, %d runs", got, runs.Load())
	}
	if title, _ := chromedp.Run(tab, chromedp.Title()); strings.Contains(title, "pwned") {
		t.Fatal("script in displayText ran")
	}
}
