package gatehouse_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/grant"
)

const grantPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: grants}
spec:
  allowed_tools: [deploy, run, nuke]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: deploy
      action: ask
      allow_args: {env: "^(staging|prod)$"}
    - tool: run
      action: ask
    - tool: nuke
      action: ask
`

// fifteenThree is the acceptance test's scope: 15 minutes, 3 uses.
var fifteenThree = grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}

// grantRig is a guarded server over streamable HTTP with bearer-token
// users (alice, bob), an Asker that counts its questions and answers with
// the scope the test sets, an audit log and an injected clock.
type grantRig struct {
	t     *testing.T
	g     *gatehouse.Guard
	store grant.Store
	url   string

	mu     sync.Mutex // guards the audit buffer's reads
	log    *bytes.Buffer
	now    atomic.Int64 // unix nanoseconds
	asks   atomic.Int64
	runs   atomic.Int64
	scope  atomic.Value // string: the scope the next approval chooses
	deny   atomic.Bool  // the Asker denies
	server *mcp.Server
}

func newGrantRig(t *testing.T, src string, store grant.Store, offers map[string][]grant.Scope) *grantRig {
	t.Helper()
	r := &grantRig{t: t, store: store, log: &bytes.Buffer{}}
	r.now.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	r.scope.Store("")
	clock := func() time.Time { return time.Unix(0, r.now.Load()).UTC() }
	w, err := audit.New(lockedWriter{&r.mu, r.log}, &audit.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if offers == nil {
		offers = map[string][]grant.Scope{"deploy": {fifteenThree}, "run": {fifteenThree}, "nuke": {fifteenThree}}
	}
	asker := gatehouse.AskerFunc(func(ctx context.Context, req gatehouse.AskRequest) (gatehouse.Answer, error) {
		r.asks.Add(1)
		if r.deny.Load() {
			return gatehouse.Answer{Reason: "no"}, nil
		}
		return gatehouse.Answer{Approved: true, Attestation: "human", Scope: r.scope.Load().(string)}, nil
	})
	r.g = mustGuard(t, mustPolicy(t, src), &gatehouse.Options{
		Ask:              &gatehouse.AskOptions{Asker: asker},
		Grants:           &gatehouse.GrantOptions{Store: store, Offers: offers},
		Audit:            w,
		Clock:            clock,
		DenyAsToolResult: true,
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "grants", Version: "1"}, nil)
	for _, name := range []string{"deploy", "run", "nuke"} {
		s.AddTool(&mcp.Tool{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				r.runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
	}
	r.g.Install(s)
	r.server = s
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "alice-token" && token != "bob-token" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: strings.TrimSuffix(token, "-token"), Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := auth.RequireBearerToken(verify, nil)(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (r *grantRig) advance(d time.Duration) { r.now.Add(int64(d)) }

// connect opens a client session for the bearer token's user.
func (r *grantRig) connect(user string, opts *mcp.ClientOptions) *mcp.ClientSession {
	r.t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: r.url, HTTPClient: &http.Client{Transport: bearer{user + "-token", http.DefaultTransport}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, opts).Connect(context.Background(), tr, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { cs.Close() })
	return cs
}

// outcome of one call: whether the tool ran and whether anyone was asked.
type outcome struct {
	ran, asked bool
	text       string
}

func (r *grantRig) call(cs *mcp.ClientSession, tool string, args map[string]any) outcome {
	r.t.Helper()
	runs, asks := r.runs.Load(), r.asks.Load()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s %v: %v", tool, args, err)
	}
	o := outcome{ran: r.runs.Load() > runs, asked: r.asks.Load() > asks}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			o.text = tc.Text
		}
	}
	return o
}

// events verifies the audit chain and returns its events.
func (r *grantRig) events() []map[string]any {
	r.t.Helper()
	r.mu.Lock()
	raw := append([]byte(nil), r.log.Bytes()...)
	r.mu.Unlock()
	if _, err := audit.Verify(bytes.NewReader(raw), nil); err != nil {
		r.t.Fatalf("audit chain does not verify: %v", err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			r.t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// grantEvents returns the kinds of the grant events of id, in order.
func grantEvents(evs []map[string]any, id string) []string {
	var out []string
	for _, e := range evs {
		md, _ := e["metadata"].(map[string]any)
		if k, _ := e["event"].(string); strings.HasPrefix(k, "GRANT_") && md["grant_id"] == id {
			out = append(out, k)
		}
	}
	return out
}

// onlyGrant returns the one live grant of principal.
func (r *grantRig) onlyGrant(principal string) grant.Grant {
	r.t.Helper()
	gs, err := r.g.Grants(context.Background(), principal)
	if err != nil || len(gs) != 1 {
		r.t.Fatalf("grants of %s: %+v, %v; want one", principal, gs, err)
	}
	return gs[0]
}
