package gatehouse_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// An ACP deny rule on an argument value, seen by a real go-sdk client: a
// typed deploy tool that, like many handlers, reads its environment
// without regard to case or surrounding white space.
const rtjACPDeny = `version: "1"
default_action: allow
rules:
  - match: {tool: deploy, args: {env: "prod"}}
    action: deny
`

type rtjDeployIn struct {
	Env string `json:"env"`
}

// TestRedTeamRTJ_ACPDenySpellingsOverTheWire: {"env":"PROD"}, " prod",
// "prod\u200b" and "%70rod" skipped the deny rule for "prod" (ACP
// match.args compared the exact text) and the handler deployed to
// production. Each is refused now; staging still runs.
func TestRedTeamRTJ_ACPDenySpellingsOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rtjACPDeny), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rtj", Version: "1"}, nil)
	var prod atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: "deploy"}, func(_ context.Context, _ *mcp.CallToolRequest, in rtjDeployIn) (*mcp.CallToolResult, any, error) {
		env := strings.ToLower(strings.TrimSpace(strings.ReplaceAll(in.Env, "\u200b", "")))
		if env == "prod" {
			prod.Add(1)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to " + env}}}, nil, nil
	})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
	for _, env := range []string{"prod", "PROD", "Prod", " prod", "prod\n", "prod\u200b", "ｐｒｏｄ"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": env}})
		if err == nil && !res.IsError {
			t.Errorf("env %q: the deny rule for prod let it through", env)
		} else if err != nil && !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("env %q: %v, want Forbidden", env, err)
		}
	}
	if n := prod.Load(); n != 0 {
		t.Errorf("the handler deployed to production %d times", n)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}})
	if err != nil || res.IsError {
		t.Errorf("near miss, staging: %v, %v", res, err)
	}
}

const rtjACPLimited = `version: "1"
default_action: deny
rules:
  - match: {tool: send_email, args: {to: "*@partner.example"}}
    action: allow
    rate_limit: "2/hour"
  - match: {tool: send_email}
    action: allow
`

// TestRedTeamRTJ_ACPRateLimitSpellingsOverTheWire: after the two calls
// the rule for "*@partner.example" allows per hour, "a@PARTNER.example"
// went on without limit (a later, unlimited allow rule took it). It
// shares the rule's bucket now; another address does not.
func TestRedTeamRTJ_ACPRateLimitSpellingsOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rtjACPLimited), nil)
	var sent atomic.Int64
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "send_email", func(map[string]any) string { sent.Add(1); return "sent" }, nil)
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i, to := range []string{"a@partner.example", "b@partner.example", "a@PARTNER.example", "a@partner.example\u200b", "a@partner.EXAMPLE"} {
		res := c.callTool(i+1, "send_email", map[string]any{"to": to})
		if i < 2 {
			if rpcErr(res) != nil {
				t.Fatalf("call %d within the limit: %v", i, res)
			}
			continue
		}
		if e := rpcErr(res); e == nil || fmt.Sprint(e["code"]) != "-32002" {
			t.Errorf("%q after the rule's limit: %v, want -32002", to, res)
		}
	}
	if res := c.callTool(10, "send_email", map[string]any{"to": "x@other.example"}); rpcErr(res) != nil {
		t.Errorf("near miss, another address (no limit): %v", res)
	}
	if n := sent.Load(); n != 3 {
		t.Errorf("sent %d mails, want 3", n)
	}
}

const rtjACPServer = `version: "1"
default_action: allow
rules:
  - match: {tool: deploy, server: "prod-*"}
    action: deny
`

// TestRedTeamRTJ_ACPServerRuleWithoutServerName: ACP §5.1's own example
// denies deploy_* on "prod-*" servers. Without Options.ServerName the
// policy was evaluated with no server name at all, so the deny rule never
// matched and deploy ran on the server that calls itself prod-east,
// while the human, when asked, was shown "prod-east" (the server's own
// name). The policy now reads the same name: Options.ServerName, else the
// name the server gives itself.
func TestRedTeamRTJ_ACPServerRuleWithoutServerName(t *testing.T) {
	for _, name := range []string{"prod-east", "staging-east"} {
		g := mustGuard(t, mustPolicy(t, rtjACPServer), nil)
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
		var runs int
		textTool(s, "deploy", func(map[string]any) string { return "deployed" }, &runs)
		g.Install(s)
		_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
		denied := err != nil || res.IsError
		if want := name == "prod-east"; denied != want {
			t.Errorf("server %s: denied=%v (%v), want %v", name, denied, err, want)
		}
	}
	// Options.ServerName still wins over the server's own name.
	g := mustGuard(t, mustPolicy(t, rtjACPServer), &gatehouse.Options{ServerName: "staging-west"})
	s := mcp.NewServer(&mcp.Implementation{Name: "prod-east", Version: "1"}, nil)
	textTool(s, "deploy", func(map[string]any) string { return "deployed" }, nil)
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("near miss, Options.ServerName staging-west: %v, %v", res, err)
	}
}
