package gatehouse_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team of the server info fix (rtg): the guard learnt the server's
// Implementation at Install and at initialize only. go-sdk reads the
// Implementation through its pointer on every 2026-07-28 result, so a
// secret set in it after Install (a title or websiteUrl filled in once the
// server knows its deployment), or any secret in it under the Middleware
// pair on a protocol without initialize, reached the client.

func infoTool(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, Meta: mcp.Meta{"mine": "kept"}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "file:///r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///r", Text: "r"}}}, nil
	})
}

func infoStateless(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestRedTeamRTG_ServerInfoSetAfterInstall(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, wirePol), &gatehouse.Options{DenyAsToolResult: true})
	impl := &mcp.Implementation{Name: "info", Version: "1"}
	s := mcp.NewServer(impl, &mcp.ServerOptions{HasResources: true})
	infoTool(s)
	g.Install(s)
	impl.WebsiteURL = "https://docs.example.com/?token=" + wireGH
	t.Run("in-memory", func(t *testing.T) {
		_, cs := connectAt(t, s, "agent", nil, "")
		infoExchange(t, "after Install", cs)
	})
	t.Run("stateless", func(t *testing.T) {
		infoExchange(t, "after Install, stateless", infoStateless(t, s))
	})
}

func TestRedTeamRTG_ServerInfoMiddlewarePair(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, wirePol), &gatehouse.Options{DenyAsToolResult: true})
	s := mcp.NewServer(&mcp.Implementation{Name: "info", Version: "1", Title: "build " + wireKey}, &mcp.ServerOptions{HasResources: true})
	infoTool(s)
	recv, send := g.Middleware()
	s.AddSendingMiddleware(send)
	s.AddReceivingMiddleware(recv)
	infoExchange(t, "Middleware, stateless", infoStateless(t, s))
}

// Near misses: a clean Implementation changed after Install reaches the
// client as changed; under the Middleware pair, once an initialize has
// shown the guard the Implementation, a 2026-07-28 client sees it as it is.
func TestRedTeamRTG_ServerInfoCleanChanges(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	impl := &mcp.Implementation{Name: "info", Version: "1", Title: "build " + wireKey}
	s := mcp.NewServer(impl, nil)
	infoTool(s)
	g.Install(s)
	impl.Title = "Build server"
	_, cs := connectAt(t, s, "agent", nil, "")
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "info" || info.Title != "Build server" {
		t.Errorf("serverInfo %+v, want the title as set after Install", info)
	}

	g2 := mustGuard(t, mustPolicy(t, wirePol), nil)
	s2 := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "2.1"}, nil)
	infoTool(s2)
	recv, send := g2.Middleware()
	s2.AddSendingMiddleware(send)
	s2.AddReceivingMiddleware(recv)
	if _, old := connectAt(t, s2, "agent", nil, "2025-11-25"); old.InitializeResult().ServerInfo.Name != "plain" {
		t.Errorf("2025-11-25 serverInfo %+v", old.InitializeResult().ServerInfo)
	}
	if info := infoStateless(t, s2).InitializeResult().ServerInfo; info == nil || info.Name != "plain" || info.Version != "2.1" {
		t.Errorf("2026-07-28 serverInfo %+v, want it as the server has it", info)
	}
}
