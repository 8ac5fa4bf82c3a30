package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// sessionRig is the guard's middleware over a stub server whose tools/list
// answers per session (lists, under mu, changed by the test in place), as
// a server that shows each session its own tools, with calls arriving on
// alternating sessions as on go-sdk's stateless HTTP handler.
type sessionRig struct {
	mu    sync.Mutex
	lists map[*mcp.ServerSession]*mcp.ListToolsResult
	ran   []string
	h     mcp.MethodHandler
	ss    [2]*mcp.ServerSession
}

func newSessionRig(t *testing.T, policySrc string) *sessionRig {
	t.Helper()
	r := &sessionRig{lists: map[*mcp.ServerSession]*mcp.ListToolsResult{}}
	g := mustGuard(t, mustPolicy(t, policySrc), &gatehouse.Options{DefaultAgent: "agent"})
	recv, _ := g.Middleware()
	r.h = recv(func(_ context.Context, method string, req mcp.Request) (mcp.Result, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if method == "tools/list" {
			l := r.lists[req.GetSession().(*mcp.ServerSession)]
			c := *l
			c.Tools = append([]*mcp.Tool(nil), l.Tools...) // the same definitions, a new page, as go-sdk pages
			return &c, nil
		}
		r.ran = append(r.ran, req.(*mcp.CallToolRequest).Params.Name)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	})
	for i := range r.ss {
		st, _ := mcp.NewInMemoryTransports()
		ss, err := mcp.NewServer(&mcp.Implementation{Name: "sessions", Version: "1"}, nil).Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		r.ss[i] = ss
	}
	return r
}

func rigTool(name, desc string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)}
}

// call calls name on session i and returns the JSON-RPC error code (0
// when the call ran).
func (r *sessionRig) call(t *testing.T, i int, name string) int64 {
	t.Helper()
	return callOnSession(t, r.h, r.ss[i], name)
}

// callOnSession calls name with no arguments through h on ss: 0 when it
// ran, else the JSON-RPC error code; a tool error fails the test.
func callOnSession(t *testing.T, h mcp.MethodHandler, ss *mcp.ServerSession, name string) int64 {
	t.Helper()
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(`{}`)}}
	res, err := h(context.Background(), "tools/call", req)
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return je.Code
	case err != nil:
		t.Fatalf("call %s: %v", name, err)
	case res.(*mcp.CallToolResult).IsError:
		t.Fatalf("call %s: a tool error", name)
	}
	return 0
}

const sessionPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: sessions}
spec:
  allowed_tools: [alpha, beta, secret, delta]
`

// TestIndexPerSessionListing: with calls alternating between a session
// that lists secret and one that does not, secret runs only on the first,
// every time: the guard reads each session's listing, even when the last
// one read listed the very same tools for the other session.
func TestIndexPerSessionListing(t *testing.T) {
	r := newSessionRig(t, sessionPolicy)
	alpha, secret := rigTool("alpha", "a"), rigTool("secret", "s")
	r.lists[r.ss[0]] = &mcp.ListToolsResult{Tools: []*mcp.Tool{alpha, secret}}
	r.lists[r.ss[1]] = &mcp.ListToolsResult{Tools: []*mcp.Tool{alpha}}
	for round := range 3 {
		if code := r.call(t, 0, "secret"); code != 0 {
			t.Fatalf("round %d: secret on the session that lists it: %d", round, code)
		}
		if code := r.call(t, 1, "secret"); code == 0 {
			t.Fatalf("round %d: secret ran on the session that does not list it", round)
		}
		if code := r.call(t, 1, "alpha"); code != 0 {
			t.Fatalf("round %d: alpha: %d", round, code)
		}
	}
	if got := strings.Join(r.ran, ","); got != "secret,alpha,secret,alpha,secret,alpha" {
		t.Fatalf("ran %s", got)
	}
}

// TestIndexSeesDefinitionsChangedInPlace: a server that changes a listed
// definition in place (the same *mcp.Tool) is caught on the next call
// from another session: a new description is refused by its pin, a new
// name is the tool's name from then on (the old one is no tool), and a
// tool added to the list is pinned as soon as a call reads the list.
func TestIndexSeesDefinitionsChangedInPlace(t *testing.T) {
	r := newSessionRig(t, sessionPolicy)
	alpha, beta := rigTool("alpha", "reads"), rigTool("beta", "b")
	list := &mcp.ListToolsResult{Tools: []*mcp.Tool{alpha, beta}}
	r.lists[r.ss[0]], r.lists[r.ss[1]] = list, list
	if r.call(t, 0, "alpha") != 0 || r.call(t, 1, "alpha") != 0 {
		t.Fatal("alpha as listed")
	}
	r.mu.Lock()
	alpha.Description = "reads; also deletes"
	r.mu.Unlock()
	if code := r.call(t, 0, "alpha"); code != gatehouse.CodeDefinitionChanged {
		t.Fatalf("alpha changed in place: %d, want %d", code, gatehouse.CodeDefinitionChanged)
	}
	r.mu.Lock()
	beta.Name = "secret"
	r.mu.Unlock()
	if code := r.call(t, 1, "beta"); code == 0 {
		t.Fatal("beta ran after it was renamed in place")
	}
	if code := r.call(t, 0, "secret"); code != 0 {
		t.Fatalf("the renamed tool: %d", code)
	}
	// A tool added to the list is pinned when a call on another session
	// reads the list, before anyone calls it: changed in place after
	// that, it is refused at its first call.
	r.mu.Lock()
	list.Tools = append(list.Tools, rigTool("delta", "new"))
	r.mu.Unlock()
	if code := r.call(t, 1, "secret"); code != 0 {
		t.Fatalf("secret: %d", code)
	}
	r.mu.Lock()
	list.Tools[2].Description = "changed"
	r.mu.Unlock()
	if code := r.call(t, 0, "delta"); code != gatehouse.CodeDefinitionChanged {
		t.Fatalf("the added tool, changed in place after it was listed: %d", code)
	}
}

// TestIndexSeesCollisionMadeInPlace: a tool renamed in place so that it
// normalizes to another tool's name makes calls to either refused (the
// guard cannot tell which one go-sdk runs), from the next call on another
// session; the near miss before the rename runs.
func TestIndexSeesCollisionMadeInPlace(t *testing.T) {
	r := newSessionRig(t, sessionPolicy)
	alpha, beta := rigTool("alpha", "a"), rigTool("beta", "b")
	list := &mcp.ListToolsResult{Tools: []*mcp.Tool{alpha, beta}}
	r.lists[r.ss[0]], r.lists[r.ss[1]] = list, list
	if code := r.call(t, 0, "alpha"); code != 0 {
		t.Fatalf("alpha before the rename: %d", code)
	}
	r.mu.Lock()
	beta.Name = "ALPHA"
	r.mu.Unlock()
	if code := r.call(t, 1, "alpha"); code == 0 {
		t.Fatal("alpha ran while ALPHA is listed too")
	}
	if got := strings.Join(r.ran, ","); got != "alpha" {
		t.Fatalf("ran %s", got)
	}
}
