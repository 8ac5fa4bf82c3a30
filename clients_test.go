package gatehouse_test

// Faults 9-12 of the root-pipeline issue: what real clients see.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// featureServer has a tool, a prompt, a resource and a completion handler,
// and go-sdk's default logging capability.
func featureServer(t *testing.T, g *gatehouse.Guard) mcp.Transport {
	t.Helper()
	return featureServerWith(t, g, func(s *mcp.Server) {
		var runs atomic.Int64
		countingTool(s, "echo", &runs)
	})
}

func featureServerWith(t *testing.T, g *gatehouse.Guard, tools func(*mcp.Server)) mcp.Transport {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"id_rsa"}}}, nil
		},
	})
	tools(s)
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	s.AddResource(&mcp.Resource{Name: "r", URI: "file:///r"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	g.Install(s)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ct
}

// Fault 9: the capabilities advertised in initialize and server/discover
// match the methods the policy allows: with AIP's default method list,
// no logging (MCP Inspector calls logging/setLevel at once and stopped at
// "Method not allowed"), prompts, resources or completions... except
// completion/complete, which the default list has.
func TestCapabilitiesMatchPolicy(t *testing.T) {
	caps := func(res map[string]any) map[string]any {
		r, _ := res["result"].(map[string]any)
		c, _ := r["capabilities"].(map[string]any)
		if c == nil {
			t.Fatalf("no capabilities: %v", res)
		}
		return c
	}
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	init := caps(connectRaw(t, featureServer(t, g)).request(1, "initialize", initializeParams("2025-06-18")))
	disc := caps(dialRaw(t, featureServer(t, g), newProtocol).request(1, "server/discover", map[string]any{}))
	for name, c := range map[string]map[string]any{"initialize": init, "server/discover": disc} {
		for _, k := range []string{"logging", "prompts", "resources"} {
			if c[k] != nil {
				t.Errorf("%s advertises %s, which the policy denies: %v", name, k, c)
			}
		}
		if c["tools"] == nil || c["completions"] == nil {
			t.Errorf("%s lost an allowed capability: %v", name, c)
		}
	}
	const open = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_methods: [initialize, tools/list, logging/setLevel, prompts/list, prompts/get]
  allowed_tools: [echo]
`
	c := caps(connectRaw(t, featureServer(t, mustGuard(t, mustPolicy(t, open), nil))).request(1, "initialize", initializeParams("2025-06-18")))
	if c["logging"] == nil || c["prompts"] == nil || c["resources"] != nil || c["completions"] != nil || c["tools"] == nil {
		t.Errorf("allowed methods, capabilities %v", c)
	}
}

// Fault 10: on 2026-07-28 the client's identity comes with each request,
// and a tools/list that depends on the caller is private to it.
func TestClientInfoPerRequest(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, newProtocol)
	for i, name := range []string{"alice", "bob"} {
		c.request(i, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{},
			"_meta": map[string]any{"io.modelcontextprotocol/clientInfo": map[string]any{"name": name, "version": "1"}}})
	}
	var agents []string
	for _, e := range f.toolEvents(t) {
		agents = append(agents, fmt.Sprint(e["agent"]))
	}
	if strings.Join(agents, ",") != "client:alice,client:bob" {
		t.Fatalf("agents %v", agents)
	}

	scope := func(g *gatehouse.Guard) any {
		res := dialRaw(t, serve(t, g, f.setup), newProtocol).request(1, "tools/list", map[string]any{})
		r, _ := res["result"].(map[string]any)
		return r["cacheScope"]
	}
	store, err := trust.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := scope(mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Trust: &gatehouse.TrustOptions{Store: store}})); got != "private" {
		t.Errorf("tools/list per caller (trust levels): cacheScope %v", got)
	}
	if got := scope(mustGuard(t, mustPolicy(t, basePolicy), nil)); got != "public" {
		t.Errorf("tools/list the same for every caller: cacheScope %v", got)
	}
}

// Fault 11: an ask for an AddTool tool from a client that cannot elicit is
// asked through Options.Ask when set, and otherwise refused with -32004 and
// a reason that says why (it was go-sdk's code 0 "client does not support
// elicitation").
func TestAddToolClientWithoutElicitation(t *testing.T) {
	for _, withAsker := range []bool{false, true} {
		asked := 0
		o := &gatehouse.Options{}
		if withAsker {
			o.Ask = &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
				asked++
				return gatehouse.Answer{Approved: true}, nil
			})}
		}
		g := mustGuard(t, mustPolicy(t, basePolicy), o)
		runs := 0
		ct := serve(t, g, func(s *mcp.Server) {
			gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
				runs++
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
			})
		})
		res := dialRaw(t, ct, "2025-06-18").callTool(1, "deploy", map[string]any{"env": "staging"})
		e := rpcErr(res)
		switch {
		case withAsker && (e != nil || asked != 1 || runs != 1):
			t.Errorf("with an Asker: %v asked=%d runs=%d", res, asked, runs)
		case !withAsker && (fmt.Sprint(e["code"]) != "-32004" || !strings.Contains(fmt.Sprint(e["data"]), "cannot show approval prompts") || runs != 0):
			t.Errorf("without an Asker: %v runs=%d", res, runs)
		}
	}
}

// Fault 12: the README's guard snippet shows the safe setup: DLP on by
// default (nothing to opt into), DenyAsToolResult (clients show only
// "Forbidden"; a tool result's text reaches the model), a Logger, and
// Install as the last middleware; its code lines are lines of
// Example_guard, which runs.
func TestREADMEGuardSnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Guarding a go-sdk server\n\n```go\n")
	if !ok {
		t.Fatal(`README has no "## Guarding a go-sdk server" section starting with a go snippet`)
	}
	snippet, _, _ := strings.Cut(section, "```")
	for _, want := range []string{"DenyAsToolResult: true", "Logger:", "guard.Install(server)", "last"} {
		if !strings.Contains(snippet, want) {
			t.Errorf("the guard snippet does not show %q", want)
		}
	}
	if strings.Contains(snippet, "DLP") {
		t.Error("the guard snippet configures DLP: the default must be the safe setup")
	}
	example, err := os.ReadFile("example_guard_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(example), "func Example_guard() {")
	if !ok {
		t.Fatal("example_guard_test.go has no Example_guard")
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		lines[code(l)] = true
	}
	for _, l := range strings.Split(snippet, "\n") {
		if c := code(l); c != "" && !lines[c] {
			t.Errorf("README line not in Example_guard: %s", strings.TrimSpace(l))
		}
	}
}
