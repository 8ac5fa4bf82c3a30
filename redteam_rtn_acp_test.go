package gatehouse_test

import (
	"context"
	"net/mail"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team rtn: variants of red team rtj's ACP fixes, seen by a real
// go-sdk client.

const rtnACPReadings = `version: "1"
default_action: allow
rules:
  - match: {tool: pay, args: {amount: "1000000"}}
    action: deny
  - match: {tool: pay, args: {force: "true"}}
    action: deny
`

type rtnPayIn struct {
	Amount string `json:"amount"`
	Force  string `json:"force,omitempty"`
}

// TestRedTeamRTN_ACPStringReadingsOverTheWire: a tool that takes its
// amount as a string and reads it with strconv (as handlers of decimal
// amounts do) paid a million for "1e6", "1000000.0", "+1000000" and
// "1_000_000" (ParseInt base 0), and forced for "1" or "t" (ParseBool),
// past deny rules that caught the number 1000000 and the text "true".
// Each is refused now; a thousand still pays.
func TestRedTeamRTN_ACPStringReadingsOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rtnACPReadings), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "rtn", Version: "1"}, nil)
	var million, forced atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: "pay"}, func(_ context.Context, _ *mcp.CallToolRequest, in rtnPayIn) (*mcp.CallToolResult, any, error) {
		a := strings.TrimSpace(in.Amount)
		f, err := strconv.ParseFloat(a, 64)
		if err != nil {
			i, _ := strconv.ParseInt(a, 0, 64)
			f = float64(i)
		}
		if f >= 1e6 {
			million.Add(1)
		}
		if b, _ := strconv.ParseBool(in.Force); b {
			forced.Add(1)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "paid"}}}, nil, nil
	})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
	call := func(args map[string]any) bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pay", Arguments: args})
		return err == nil && !res.IsError
	}
	for _, a := range []string{"1000000", "1e6", "1000000.0", "+1000000", "1_000_000", " 1E6 "} {
		if call(map[string]any{"amount": a}) {
			t.Errorf("amount %q: the deny rule for 1000000 let it through", a)
		}
	}
	for _, f := range []string{"true", "1", "t", "T"} {
		if call(map[string]any{"amount": "5", "force": f}) {
			t.Errorf("force %q: the deny rule for true let it through", f)
		}
	}
	if million.Load() != 0 || forced.Load() != 0 {
		t.Errorf("the handler paid a million %d times and forced %d times", million.Load(), forced.Load())
	}
	// Near misses.
	for _, args := range []map[string]any{{"amount": "1000"}, {"amount": "1e3"}, {"amount": "5", "force": "0"}} {
		if !call(args) {
			t.Errorf("near miss %v was refused", args)
		}
	}
}

// TestRedTeamRTN_ACPServerSpellingsOverTheWire: the deny rule for
// "prod-*" servers compared the server's name exactly, so a server that
// calls itself "Prod-East" (the name its clients and the human are
// shown), "PROD-east" or "prod\u200b-east" ran deploy; so did
// Options.ServerName "Prod-West". Each is refused now; staging runs.
func TestRedTeamRTN_ACPServerSpellingsOverTheWire(t *testing.T) {
	run := func(name string, o *gatehouse.Options) (shown string, ok bool) {
		g := mustGuard(t, mustPolicy(t, rtjACPServer), o)
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
		textTool(s, "deploy", func(map[string]any) string { return "deployed" }, nil)
		g.Install(s)
		_, cs := connectAt(t, s, "agent", nil, "2025-06-18")
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
		return cs.InitializeResult().ServerInfo.Name, err == nil && !res.IsError
	}
	for _, name := range []string{"Prod-East", "PROD-east", "prod\u200b-east", "ｐｒｏｄ-east"} {
		if shown, ok := run(name, nil); ok {
			t.Errorf("server %q (the client is shown %q): deploy ran past the deny rule for prod-*", name, shown)
		}
	}
	if _, ok := run("staging-east", &gatehouse.Options{ServerName: "Prod-West"}); ok {
		t.Errorf("Options.ServerName Prod-West: deploy ran past the deny rule for prod-*")
	}
	// Near misses.
	for _, name := range []string{"staging-east", "preprod-east", "рrod-east"} { // Cyrillic р: another name
		if _, ok := run(name, nil); !ok {
			t.Errorf("near miss %q was refused", name)
		}
	}
}

const rtnACPMail = `version: "1"
default_action: allow
rules:
  - match: {tool: send_email, args: {to: "*@evil.example"}}
    action: deny
`

// TestRedTeamRTN_ACPMailAddressesOverTheWire: a mail tool that reads its
// recipients with net/mail sent to eve@evil.example for "Eve
// <eve@evil.example>" and for a list that starts with her, past a deny
// rule for *@evil.example. Each is refused now; a partner still gets mail.
func TestRedTeamRTN_ACPMailAddressesOverTheWire(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rtnACPMail), nil)
	var evil atomic.Int64
	ct := serve(t, g, func(s *mcp.Server) {
		textTool(s, "send_email", func(args map[string]any) string {
			to, _ := args["to"].(string)
			list, err := mail.ParseAddressList(to)
			if err != nil {
				return "bad address"
			}
			for _, a := range list {
				if strings.HasSuffix(strings.ToLower(a.Address), "@evil.example") {
					evil.Add(1)
				}
			}
			return "sent"
		}, nil)
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i, to := range []string{"eve@evil.example", "Eve <eve@evil.example>", "eve@evil.example (Eve)", "eve@evil.example, bob@partner.example", `"Bob" <EVE@evil.example>`} {
		if res := c.callTool(i+1, "send_email", map[string]any{"to": to}); rpcErr(res) == nil {
			t.Errorf("to %q: the deny rule for *@evil.example let it through: %v", to, res)
		}
	}
	if n := evil.Load(); n != 0 {
		t.Errorf("the handler mailed evil.example %d times", n)
	}
	if res := c.callTool(20, "send_email", map[string]any{"to": "Bob <bob@partner.example>, eve@notevil.example.org"}); rpcErr(res) != nil {
		t.Errorf("near miss, partner and notevil: %v", res)
	}
}
