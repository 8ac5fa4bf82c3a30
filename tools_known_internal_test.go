package gatehouse

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestCheckKnownIsRegistered: the known the dispatch check reports (which
// an allowed call's DecisionEvent.Registered now comes from) is what
// registered reports right after it, the index lookup it replaces:
// registered, unregistered, colliding and re-spelled names, a tool
// removed, and a listing that fails (the index as last read stands).
func TestCheckKnownIsRegistered(t *testing.T) {
	g := fetchGuard(t)
	st, _ := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var names []string
	var fail bool
	srv := g.newServed()
	srv.index.setNext(func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		if fail {
			return nil, errors.New("listing down")
		}
		r := &mcp.ListToolsResult{}
		for _, n := range names {
			r.Tools = append(r.Tools, &mcp.Tool{Name: n})
		}
		return r, nil
	})
	steps := []struct {
		names []string
		fail  bool
	}{
		{[]string{"fetch", "Echo", "echo", "read_file"}, false},
		{[]string{"read_file"}, false},
		{[]string{"fetch"}, false},
		{[]string{"read_file"}, true}, // fails: fetch stays registered as last read
		{nil, false},
	}
	calls := []string{"fetch", "Echo", "echo", "ECHO", "read_file", "Read_File", "nope", ""}
	sawStale := false
	for i, s := range steps {
		names, fail = s.names, s.fail
		for _, raw := range calls {
			srv.index.invalidate()
			req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: raw}}
			_, known, ok := srv.index.check(context.Background(), req, raw, normalizeTool(raw))
			if want := srv.index.registered(raw); known != want {
				t.Errorf("step %d, %q: known %v, registered %v (ok %v)", i, raw, known, want, ok)
			}
			sawStale = sawStale || (s.fail && known)
		}
	}
	if !sawStale {
		t.Error("the failing listing never kept a registered name: the case is not exercised")
	}
}

// fetchGuard is a Guard with default options whose policy allows fetch.
func fetchGuard(t *testing.T) *Guard {
	t.Helper()
	p, err := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {allowed_tools: [fetch]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
