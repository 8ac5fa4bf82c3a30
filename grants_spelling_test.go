package gatehouse_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// TestGrantArgumentSpellings: a grant for deploy {"env":"staging",
// "replicas":3} covers exactly the calls whose arguments are the same
// values in gatehouse's canonical form. Other JSON spellings of the same
// values use it (near misses that must pass); duplicate names, names equal
// under case folding, look-alike values and extra members never do (the
// call is asked, or refused before), whatever the policy and the handler
// would read.
func TestGrantArgumentSpellings(t *testing.T) {
	var asks atomic.Int64
	var scope atomic.Value
	scope.Store("day")
	g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
		Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(_ context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
			asks.Add(1)
			return gatehouse.Answer{Approved: true, Scope: scope.Swap("").(string)}, nil // a grant on the first ask only
		})},
		Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {{ID: "day", Duration: 24 * 60 * 60 * 1e9}}}, ForUnauthenticated: true},
	})
	var runs int
	c := dialRaw(t, serve(t, g, func(s *mcp.Server) { textTool(s, "deploy", func(map[string]any) string { return "ok" }, &runs) }), "2025-06-18")
	call := func(id int, raw string) (ran, asked bool) {
		r, a := runs, asks.Load()
		c.request(id, "tools/call", map[string]any{"name": "deploy", "arguments": json.RawMessage(raw)})
		return runs > r, asks.Load() > a
	}
	if ran, asked := call(0, `{"env":"staging","replicas":3}`); !ran || !asked {
		t.Fatal("the approving call")
	}
	uses := []string{
		`{"replicas":3,"env":"staging"}`,
		`{ "env" : "staging" , "replicas" : 3 }`,
		`{"env":"stag\u0069ng","replicas":3}`,
		`{"env":"staging","replicas":3.0}`,
		`{"env":"staging","replicas":30e-1}`,
		`{"\u0065nv":"staging","replicas":3}`,
	}
	asksAgain := []string{
		`{"env":"prod","replicas":3}`,
		`{"env":"staging","replicas":4}`,
		`{"env":"staging","replicas":"3"}`,
		`{"env":"staging"}`,
		`{"env":"staging","replicas":3,"force":true}`,
		`{"env":"prod","env":"staging","replicas":3}`,
		`{"env":"staging","replicas":3,"replicas":4}`,
		`{"env":"staging","ENV":"prod","replicas":3}`,
		`{"env":"staging","replicas":3,"Replicas":3}`,
		`{"env":"staging","replicas":3.0000000000000001}`,
		`{"env":"staging","replicas":1e400}`,
		`{"env":"staging","replicas":3,"":null}`,
	}
	for i, raw := range uses {
		if ran, asked := call(100+i, raw); !ran || asked {
			t.Errorf("%s: ran=%v asked=%v; the same values in another spelling should use the grant", raw, ran, asked)
		}
	}
	for i, raw := range asksAgain {
		if ran, asked := call(200+i, raw); ran && !asked {
			t.Errorf("%s: ran on the grant; want asked (or refused)", raw)
		}
	}
	if gs, _ := g.Grants(context.Background(), ""); len(gs) != 1 {
		t.Fatalf("grants: %+v; want the one", gs)
	}
}
