package gatehouse_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// TestRedTeamRVD_DefaultAgentIsNoUser: approvals and grants belong to
// authenticated users, agents of the form "user:<id>" (a bearer token's
// UserID). Options.DefaultAgent, the identity of a request without a
// token or a client name (a go-sdk client named "" or "\u200b" sends
// one), was taken as given: set to "user:alice", every such anonymous
// request was alice, and used the grant alice had made. Now New refuses
// such a DefaultAgent; a plain label still works and is nobody's user
// (near miss: the anonymous call is asked).
func TestRedTeamRVD_DefaultAgentIsNoUser(t *testing.T) {
	for _, c := range []struct {
		def    string
		refuse bool
	}{
		{"user:alice", true},
		{"user:", true},
		{"alice", false},
		{"anonymous", false},
	} {
		t.Run(c.def, func(t *testing.T) {
			var asks, runs atomic.Int64
			asker := gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
				asks.Add(1)
				return gatehouse.Answer{Approved: true, Attestation: "human", Scope: "day"}, nil
			})
			g, err := gatehouse.New(mustPolicy(t, grantPolicy), &gatehouse.Options{DefaultAgent: c.def,
				Ask:    &gatehouse.AskOptions{Asker: asker},
				Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {{ID: "day", Duration: 24 * time.Hour}}}}})
			if c.refuse {
				if err == nil || !strings.Contains(err.Error(), "DefaultAgent") {
					defer func() {
						if err == nil {
							t.Errorf("New accepted DefaultAgent %q", c.def)
						}
					}()
				} else {
					return
				}
			} else if err != nil {
				t.Fatalf("New refused DefaultAgent %q: %v", c.def, err)
			}
			s := mcp.NewServer(&mcp.Implementation{Name: "grants", Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
			})
			g.Install(s)
			verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
				if token != "alice-token" {
					return nil, auth.ErrInvalidToken
				}
				return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
			}
			h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
			mux := http.NewServeMux()
			mux.Handle("/mcp", auth.RequireBearerToken(verify, nil)(h))
			mux.Handle("/open", h) // a route without tokens (health checks, a local tool)
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close) // after the sessions (cleanups run last first)
			connect := func(path, name string, rt http.RoundTripper) *mcp.ClientSession {
				tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + path, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(context.Background(), tr, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
				return cs
			}
			alice := connect("/mcp", "agent", bearer{"alice-token", http.DefaultTransport})
			anon := connect("/open", "\u200b", http.DefaultTransport)
			args := map[string]any{"env": "staging"}
			if _, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: args}); err != nil || asks.Load() != 1 || runs.Load() != 1 {
				t.Fatalf("alice's approval: %v asks=%d runs=%d", err, asks.Load(), runs.Load())
			}
			_, _ = anon.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
			if runs.Load() == 2 && asks.Load() == 1 {
				t.Fatalf("ATTACK: an anonymous request (DefaultAgent %q) ran on alice's grant", c.def)
			}
		})
	}
}
