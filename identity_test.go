package gatehouse_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestIdentityFromBearerToken: over streamable HTTP with bearer auth, the
// token's user is the agent (limits, budgets and the audit log key on it),
// whatever the client calls itself.
func TestIdentityFromBearerToken(t *testing.T) {
	var log syncBuffer
	w, _ := audit.New(&log, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Audit: w, Clock: func() time.Time { return now }})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	textTool(s, "limited", func(map[string]any) string { return "ok" }, nil)
	g.Install(s)
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "alice-token" && token != "bob-token" && token != "Alice-token" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: strings.TrimSuffix(token, "-token"), Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the sessions' cleanups: they run last-in first-out
	connect := func(token string) *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}, MaxRetries: -1}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "same-name", Version: "1"}, nil).Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice, bob := connect("alice-token"), connect("bob-token")
	call := func(cs *mcp.ClientSession) error {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "limited", Arguments: map[string]any{}})
		return err
	}
	for range 2 {
		if err := call(alice); err != nil {
			t.Fatal(err)
		}
	}
	if err := call(alice); err == nil || !strings.Contains(err.Error(), "Rate limit exceeded") {
		t.Fatalf("alice's third call: %v", err)
	}
	if err := call(bob); err != nil {
		t.Fatalf("bob has his own bucket although both clients share a name: %v", err)
	}
	// "Alice" is another authenticated user than "alice": no case folding.
	if err := call(connect("Alice-token")); err != nil {
		t.Fatalf("Alice shares alice's bucket: %v", err)
	}
	if !strings.Contains(log.String(), `"agent":"user:alice"`) || !strings.Contains(log.String(), `"agent":"user:bob"`) || strings.Contains(log.String(), `"tool":"limited","agent":"client:same-name"`) {
		t.Errorf("audit agents:\n%s", log.String())
	}
}
