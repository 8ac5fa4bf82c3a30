package gatehouse_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// Near misses of the issue 20 red team against grants (the rig is in
// redteam20_test.go): every spelling and path below must hold.

// Near misses: nested values, look-alike text and number spellings. A
// grant covers exactly the values the handler would decode the same way.
func TestRedTeam20_GrantNestedAndUnicodeSpellings(t *testing.T) {
	r := newRT20(t, grantPolicy, nil, map[string][]grant.Scope{"run": {rt20Day}}, rt20Tool("run", "r"))
	r.scope.Store("day")
	approved := `{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"café"}`
	if ran, asked, res := r.call("run", approved); !ran || !asked {
		t.Fatalf("approving call: %v", res)
	}
	same := []string{
		`{"name":"caf\u00e9","cfg":{"b":[1,"x",{"c":null}],"a":1}}`,
		`{"cfg":{"a":1.0,"b":[10e-1,"\u0078",{"c":null}]},"name":"café"}`,
	}
	other := []string{
		`{"cfg":{"a":1,"b":["x",1,{"c":null}]},"name":"café"}`,            // array order
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"cafe\u0301"}`,      // NFD spelling: another string
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"ｃafé"}`,            // full-width look-alike
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"café\u0000"}`,      // trailing NUL
		`{"cfg":{"a":1,"b":[1,"x",{}]},"name":"café"}`,                    // absent vs null, nested
		`{"cfg":{"a":1,"b":[1,"x",{"c":null,"C":1}]},"name":"café"}`,      // folded duplicate, nested
		`{"cfg":{"a":1,"a":2,"b":[1,"x",{"c":null}]},"name":"café"}`,      // duplicate, nested
		`{"cfg":{"a":"1","b":[1,"x",{"c":null}]},"name":"café"}`,          // string vs number
		`{"cfg":{"a":true,"b":[1,"x",{"c":null}]},"name":"café"}`,         // bool vs number
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}],"d":0},"name":"café"}`,      // extra nested member
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"café","Name":"x"}`, // folded duplicate, top level
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"caf\udce9"}`,       // lone surrogate
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]}}`,                          // argument absent
		`{"cfg":{"a":1,"b":[1,"x",{"c":null}]},"name":"café","x":null}`,   // extra null argument
		`{"cfg":{"a":9007199254740993,"b":[1,"x",{"c":null}]},"name":"café"}`,
	}
	for _, raw := range same {
		if ran, asked, res := r.call("run", raw); !ran || asked {
			t.Errorf("%s: the same values should use the grant: ran=%v asked=%v %v", raw, ran, asked, res)
		}
	}
	for _, raw := range other {
		if ran, asked, _ := r.call("run", raw); ran && !asked {
			t.Errorf("%s: ran on the grant without asking", raw)
		}
	}
}

// Near misses: invalid UTF-8 in a value never matches a grant for the
// replacement character's spelling (or the call is refused).
func TestRedTeam20_GrantInvalidUTF8(t *testing.T) {
	r := newRT20(t, grantPolicy, nil, map[string][]grant.Scope{"run": {rt20Day}}, rt20Tool("run", "r"))
	r.scope.Store("day")
	if ran, asked, res := r.call("run", `{"p":"a\ufffdb"}`); !ran || !asked {
		t.Fatalf("approving call: %v", res)
	}
	for _, raw := range []string{"{\"p\":\"a\xffb\"}", "{\"p\":\"a\xed\xa0\x80b\"}", `{"p":"a\ud800b"}`} {
		// Go's decoder reads each as "a\ufffdb", but the canonical form
		// keeps them apart from the approved spelling: asked, never
		// answered by the grant (the stricter of the two sound outcomes).
		if ran, asked, res := r.call("run", raw); ran && !asked {
			t.Errorf("%q: ran on the grant for another spelling: %v", raw, res)
		}
	}
}

// Near miss: N concurrent calls on a 3-use grant in the memory store let
// exactly 3 through without asking.
func TestRedTeam20_GrantConcurrentUsesMemory(t *testing.T) {
	r := newGrantRig(t, grantPolicy, memStore(t), nil)
	alice := r.connect("alice", nil)
	r.scope.Store("15m-3")
	if o := r.call(alice, "deploy", staging); !o.ran || !o.asked {
		t.Fatalf("approving call: %+v", o)
	}
	r.scope.Store("")
	r.deny.Store(true) // every ask is denied: only grant uses run
	runs := r.runs.Load()
	done := make(chan struct{})
	for range 24 {
		go func() {
			defer func() { done <- struct{}{} }()
			alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: staging})
		}()
	}
	for range 24 {
		<-done
	}
	if got := r.runs.Load() - runs; got != 3 {
		t.Fatalf("%d calls ran on a 3-use grant, want 3", got)
	}
}

// Near misses: another principal, another tool, and a principal at its cap
// do not reach or crowd out someone else's grants.
func TestRedTeam20_GrantPrincipals(t *testing.T) {
	st, err := grant.NewMemoryStore(&grant.MemoryOptions{MaxPerPrincipal: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := newGrantRig(t, grantPolicy, st, nil)
	alice, bob := r.connect("alice", nil), r.connect("bob", nil)
	r.scope.Store("15m-3")
	r.call(alice, "deploy", staging)
	if o := r.call(bob, "deploy", staging); !o.asked {
		t.Fatal("bob used alice's grant")
	}
	if o := r.call(alice, "run", staging); !o.asked {
		t.Fatal("a grant for deploy answered run")
	}
	// Bob fills his cap (his first grant came from the call above).
	for _, env := range []string{"prod", "x1", "x2"} {
		r.scope.Store("15m-3")
		r.call(bob, "nuke", map[string]any{"env": env})
	}
	if gs, _ := r.g.Grants(context.Background(), gatehouse.GrantPrincipal("bob")); len(gs) != 2 {
		t.Fatalf("bob's grants: %d, want his cap of 2", len(gs))
	}
	r.scope.Store("")
	if o := r.call(alice, "deploy", staging); o.asked || !o.ran {
		t.Fatalf("alice's grant after bob filled his cap: %+v", o)
	}
	r.scope.Store("15m-3")
	r.call(alice, "nuke", staging)
	if gs, _ := r.g.Grants(context.Background(), gatehouse.GrantPrincipal("alice")); len(gs) != 2 {
		t.Fatalf("alice could not make her second grant: %+v", gs)
	}
	if _, err := r.g.RevokeGrant(context.Background(), gatehouse.GrantPrincipal("bob"), r.onlyGrantOf(gatehouse.GrantPrincipal("alice"), 0).ID); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("revoking alice's grant as bob: %v, want ErrNotFound", err)
	}
}

func (r *grantRig) onlyGrantOf(principal string, i int) grant.Grant {
	r.t.Helper()
	gs, err := r.g.Grants(context.Background(), principal)
	if err != nil || len(gs) <= i {
		r.t.Fatalf("grants of %s: %+v, %v", principal, gs, err)
	}
	return gs[i]
}

// Near misses: a grant never widens the policy: a blocked tool, a
// protected path under a patterns scope, and the rule's rate limit refuse
// as before, and nobody is asked.
func TestRedTeam20_GrantNeverWidens(t *testing.T) {
	src := `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: widen}
spec:
  allowed_tools: [read, limited]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: read
      action: ask
      allow_args: {path: ".*"}
    - tool: limited
      action: ask
      rate_limit: 2/minute
    - tool: blocked
      action: block
`
	offers := map[string][]grant.Scope{"read": {rt20DayPatterns}, "limited": {rt20Day}, "blocked": {rt20Day}}
	r := newRT20(t, src, nil, offers, rt20Tool("read", "r"), rt20Tool("limited", "l"), rt20Tool("blocked", "b"))
	r.scope.Store("day-patterns")
	if ran, asked, res := r.call("read", `{"path":"/tmp/x"}`); !ran || !asked {
		t.Fatalf("approving read: %v", res)
	}
	if ran, asked, res := r.call("read", `{"path":"/srv/app/other"}`); !ran || asked {
		t.Fatalf("near miss, the pattern grant: %v", res)
	}
	for _, p := range []string{"~/.ssh/id_rsa", "/home/agent/.ssh/id_rsa", "/tmp/../home/agent/.ssh/config"} {
		if ran, asked, res := r.call("read", `{"path":"`+p+`"}`); ran || asked || fmt.Sprint(rpcErr(res)["code"]) != "-32007" {
			t.Errorf("%s: %v (ran=%v asked=%v); want -32007", p, res, ran, asked)
		}
	}
	r.scope.Store("day")
	r.call("limited", `{}`)
	r.call("limited", `{}`)
	if ran, asked, res := r.call("limited", `{}`); ran || asked || fmt.Sprint(rpcErr(res)["code"]) != "-32002" {
		t.Errorf("the rate limit with a grant: %v; want -32002", res)
	}
	r.scope.Store("day")
	if ran, asked, res := r.call("blocked", `{}`); ran || asked || rpcErr(res) == nil {
		t.Errorf("blocked tool: %v", res)
	}
	if gs, _ := r.g.Grants(context.Background(), ""); len(gs) != 2 {
		t.Errorf("grants: %+v; want read's and limited's", gs)
	}
}

// Near miss: an approval may not choose a scope offered for another tool.
func TestRedTeam20_ScopeOfAnotherTool(t *testing.T) {
	offers := map[string][]grant.Scope{"run": {rt20Day}, "deploy": {{ID: "hour", Duration: time.Hour}}}
	r := newRT20(t, grantPolicy, nil, offers, rt20Tool("run", "r"), rt20Tool("deploy", "d"))
	r.scope.Store("hour")
	if ran, _, res := r.call("run", `{}`); ran || rpcErr(res) == nil {
		t.Fatalf("run approved with deploy's scope: %v", res)
	}
	if gs, _ := r.g.Grants(context.Background(), ""); len(gs) != 0 {
		t.Fatalf("grants: %+v", gs)
	}
}

// Near misses: a grant made under one definition is void once the tool is
// changed and the change accepted; a grant made on one server does not
// answer a call to the tool of the same name and definition on another
// server (another name) under the same Guard.
func TestRedTeam20_GrantBindsDefinitionAndServer(t *testing.T) {
	r := newRT20(t, grantPolicy, nil, map[string][]grant.Scope{"run": {rt20Day}}, rt20Tool("run", "v1"))
	r.scope.Store("day")
	r.call("run", `{}`)
	if ran, asked, _ := r.call("run", `{}`); !ran || asked {
		t.Fatal("control: the grant")
	}
	other := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil)
	var otherRuns atomic.Int64
	other.AddTool(rt20Tool("run", "v1"), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		otherRuns.Add(1)
		return &mcp.CallToolResult{}, nil
	})
	r.g.Install(other)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := other.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	oc := dialRaw(t, ct, "2025-06-18")
	asks := r.asks.Load()
	oc.callTool(1, "run", map[string]any{})
	if r.asks.Load() == asks {
		t.Error("a grant made on one server answered the other server's tool")
	}
	v2 := rt20Tool("run", "v2")
	r.add(v2)
	if ran, _, res := r.call("run", `{}`); ran || fmt.Sprint(rpcErr(res)["code"]) != "-32013" {
		t.Fatalf("changed: %v", res)
	}
	if err := r.g.AcceptDefinition("run", digest(t, v2)); err != nil {
		t.Fatal(err)
	}
	if ran, asked, res := r.call("run", `{}`); !ran || !asked {
		t.Errorf("the old grant answered the accepted new definition: ran=%v asked=%v %v", ran, asked, res)
	}
}

// Near misses: a grant survives its tool being removed and added again
// with the same definition (the same tool, as its digest says), and does
// not follow the tool to another spelling, which the pin refuses.
func TestRedTeam20_GrantAfterRemoveAndReAdd(t *testing.T) {
	r := newRT20(t, grantPolicy, nil, map[string][]grant.Scope{"run": {rt20Day}, "Run": {rt20Day}}, rt20Tool("run", "v1"))
	r.scope.Store("day")
	r.call("run", `{}`)
	r.s.RemoveTools("run")
	if ran, _, res := r.call("run", `{}`); ran || rpcErr(res) == nil {
		t.Fatalf("removed: %v", res)
	}
	r.add(rt20Tool("run", "v1"))
	if ran, asked, res := r.call("run", `{}`); !ran || asked {
		t.Fatalf("re-added unchanged: ran=%v asked=%v %v", ran, asked, res)
	}
	r.s.RemoveTools("run")
	r.add(rt20Tool("Run", "v1"))
	if ran, asked, res := r.call("Run", `{}`); ran || asked || fmt.Sprint(rpcErr(res)["code"]) != "-32013" {
		t.Fatalf("re-added as Run: ran=%v asked=%v %v", ran, asked, res)
	}
}
