package gatehouse_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team, issue 15: on the 2026-07-28 protocol go-sdk adds the server's
// Implementation to every result's _meta after the middleware ran, so a
// secret in it (a token in websiteUrl, a key in the title) reached the
// client with every result, and as the initialize result's serverInfo.

// infoServer is the README's guarded server whose Implementation holds a
// secret, with one tool and one resource.
func infoServer(t *testing.T) *mcp.Server {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, wirePol), &gatehouse.Options{DenyAsToolResult: true})
	impl := &mcp.Implementation{Name: "info", Version: "1", Title: "build " + wireKey, WebsiteURL: "https://docs.example.com/?token=" + wireGH}
	s := mcp.NewServer(impl, &mcp.ServerOptions{HasResources: true})
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, Meta: mcp.Meta{"mine": "kept"}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///r", Text: "r"}}}, nil
	})
	g.Install(s)
	return s
}

// infoReceived fails when what a client received holds the planted secrets.
func infoReceived(t *testing.T, what string, v any) {
	t.Helper()
	raw, _ := json.Marshal(v)
	if strings.Contains(string(raw), wireKey) || strings.Contains(string(raw), wireGH) {
		t.Errorf("%s: the client received a secret: %s", what, raw)
	}
}

// infoExchange runs initialize, tools/list, a call (allowed and refused)
// and resources/read on cs.
func infoExchange(t *testing.T, proto string, cs *mcp.ClientSession) {
	ctx := context.Background()
	infoReceived(t, proto+" initialize", cs.InitializeResult())
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	infoReceived(t, proto+" tools/list", tl)
	for _, tool := range []string{"leak", "not_allowed"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		infoReceived(t, proto+" tools/call "+tool, res)
		if tool == "leak" && res.Meta["mine"] != "kept" {
			t.Errorf("%s: the handler's _meta was lost: %v", proto, res.Meta)
		}
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///r"})
	if err != nil {
		t.Fatal(err)
	}
	infoReceived(t, proto+" resources/read", rr)
}

func TestRedTeam22_ServerInfoInMemory(t *testing.T) {
	for _, proto := range []string{"", "2025-11-25", "2025-06-18"} {
		_, cs := connectAt(t, infoServer(t), "agent", nil, proto)
		infoExchange(t, proto, cs)
		if err := cs.Ping(context.Background(), nil); err != nil {
			t.Errorf("%q: ping (an empty result, no _meta): %v", proto, err)
		}
		if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "info" || !strings.Contains(info.Title, "[REDACTED:aws-access-key-id]") {
			t.Errorf("%q: serverInfo %+v, want the name kept and the title redacted", proto, info)
		}
	}
}

func TestRedTeam22_ServerInfoStatelessHTTP(t *testing.T) {
	s := infoServer(t)
	for _, jsonResponse := range []bool{false, true} {
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonResponse}))
		t.Cleanup(hs.Close)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		infoExchange(t, "stateless", cs)
	}
}

// A server whose Implementation holds no secret sends it as it is.
func TestRedTeam22_ServerInfoCleanUnchanged(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "2.1", WebsiteURL: "https://docs.example.com/"}, nil)
	g.Install(s)
	_, cs := connectAt(t, s, "agent", nil, "")
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "plain" || info.Version != "2.1" || info.WebsiteURL != "https://docs.example.com/" {
		t.Errorf("serverInfo %+v", info)
	}
}
