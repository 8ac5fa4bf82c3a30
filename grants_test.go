package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

func memStore(t *testing.T) grant.Store {
	t.Helper()
	st, err := grant.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var staging = map[string]any{"env": "staging"}

// TestGrantThreeUses (issue 20 acceptance): a 15-minute / 3-use grant for
// deploy {env: staging} lets exactly 3 calls through without asking, then
// asks again; a call outside the constraints asks; each step is in the
// audit chain, which verifies.
func TestGrantThreeUses(t *testing.T) {
	r := newGrantRig(t, grantPolicy, memStore(t), nil)
	alice := r.connect("alice", nil)
	r.scope.Store("15m-3")
	if o := r.call(alice, "deploy", staging); !o.ran || !o.asked {
		t.Fatalf("the approving call: %+v; want asked and run", o)
	}
	r.scope.Store("")
	id := r.onlyGrant(gatehouse.GrantPrincipal("alice")).ID
	for i := range 3 {
		r.advance(time.Minute)
		if o := r.call(alice, "deploy", staging); !o.ran || o.asked {
			t.Fatalf("use %d of the grant: %+v; want run without asking", i+1, o)
		}
	}
	if o := r.call(alice, "deploy", staging); !o.ran || !o.asked {
		t.Fatalf("the fourth call: %+v; want asked again", o)
	}
	r.scope.Store("15m-3")
	r.call(alice, "deploy", staging) // a new grant
	r.scope.Store("")
	if o := r.call(alice, "deploy", map[string]any{"env": "prod"}); !o.asked {
		t.Fatalf("a call outside the constraints: %+v; want asked", o)
	}
	if o := r.call(alice, "deploy", map[string]any{"env": "staging", "force": true}); !o.asked {
		t.Fatalf("a call with an extra argument: %+v; want asked", o)
	}
	evs := r.events()
	if got, want := grantEvents(evs, id), []string{"GRANT_CREATED", "GRANT_USED", "GRANT_USED", "GRANT_USED"}; !slices.Equal(got, want) {
		t.Fatalf("audit events of the grant: %v, want %v", got, want)
	}
	allowed := 0
	for _, e := range evs {
		md, _ := e["metadata"].(map[string]any)
		if reason, _ := md["reason"].(string); e["decision"] == "ALLOW" && strings.Contains(reason, "Allowed by grant "+id) {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d decisions audited as allowed by grant %s, want 3", allowed, id)
	}
}

// TestGrantRevokeAndExpiry: revocation takes effect on the next call;
// expiry follows the injected clock (no sleeps); both are audit events.
func TestGrantRevokeAndExpiry(t *testing.T) {
	r := newGrantRig(t, grantPolicy, memStore(t), nil)
	alice := r.connect("alice", nil)
	r.scope.Store("15m-3")
	r.call(alice, "deploy", staging)
	r.scope.Store("")
	gr := r.onlyGrant(gatehouse.GrantPrincipal("alice"))
	if o := r.call(alice, "deploy", staging); o.asked {
		t.Fatalf("before revocation: %+v", o)
	}
	if _, err := r.g.RevokeGrant(context.Background(), gatehouse.GrantPrincipal("bob"), gr.ID); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("revoking alice's grant as bob: %v, want ErrNotFound", err)
	}
	if _, err := r.g.RevokeGrant(context.Background(), gatehouse.GrantPrincipal("alice"), gr.ID); err != nil {
		t.Fatal(err)
	}
	if o := r.call(alice, "deploy", staging); !o.asked {
		t.Fatalf("after revocation: %+v; want asked", o)
	}
	r.scope.Store("15m-3")
	r.call(alice, "deploy", staging)
	r.scope.Store("")
	gr2 := r.onlyGrant(gatehouse.GrantPrincipal("alice"))
	r.advance(15*time.Minute - time.Millisecond)
	if o := r.call(alice, "deploy", staging); o.asked {
		t.Fatalf("just before expiry: %+v; want the grant used", o)
	}
	r.advance(time.Millisecond)
	if o := r.call(alice, "deploy", staging); !o.asked {
		t.Fatalf("at expiry: %+v; want asked", o)
	}
	evs := r.events()
	if got, want := grantEvents(evs, gr.ID), []string{"GRANT_CREATED", "GRANT_USED", "GRANT_REVOKED"}; !slices.Equal(got, want) {
		t.Fatalf("events of the revoked grant: %v, want %v", got, want)
	}
	if got, want := grantEvents(evs, gr2.ID), []string{"GRANT_CREATED", "GRANT_USED", "GRANT_EXPIRED"}; !slices.Equal(got, want) {
		t.Fatalf("events of the expired grant: %v, want %v", got, want)
	}
}

// TestGrantBinding (negative): a grant is used only by its principal, for
// the tool registered under exactly its name, as defined when approved.
func TestGrantBinding(t *testing.T) {
	r := newGrantRig(t, grantPolicy, memStore(t), nil)
	alice, bob := r.connect("alice", nil), r.connect("bob", nil)
	r.scope.Store("15m-3")
	r.call(alice, "deploy", staging)
	r.scope.Store("")
	if o := r.call(bob, "deploy", staging); !o.asked {
		t.Fatalf("bob using alice's grant: %+v; want asked", o)
	}
	for _, spelling := range []string{"Deploy", "DEPLOY", "deploy\u200b", "ｄｅｐｌｏｙ"} {
		if o := r.call(alice, spelling, staging); o.ran {
			t.Fatalf("another spelling %q: %+v; want refused", spelling, o)
		}
	}
	if gr := r.onlyGrant(gatehouse.GrantPrincipal("alice")); gr.Left != 3 {
		t.Fatalf("the refused spellings took uses: %d left", gr.Left)
	}
	// The author changes the tool's description: the definition digest
	// changes, and the grant no longer covers the call.
	r.server.AddTool(&mcp.Tool{Name: "deploy", Description: "deploys, and now also deletes", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r.runs.Add(1)
			return &mcp.CallToolResult{}, nil
		})
	// Pinning (on by default) refuses the changed tool outright; the
	// grant is not used.
	if o := r.call(alice, "deploy", staging); o.ran || o.asked || !strings.Contains(o.text, "definition changed") {
		t.Fatalf("a changed definition: %+v; want refused by the pin", o)
	}
	if gr := r.onlyGrant(gatehouse.GrantPrincipal("alice")); gr.Left != 3 {
		t.Fatalf("the refused call took a use: %d left", gr.Left)
	}
	// Once the author accepts the new definition, the grant made under
	// the old one still does not cover the call: it asks.
	drift := r.g.Drift()
	if len(drift) != 1 || drift[0].Tool != "deploy" {
		t.Fatalf("drift: %+v", drift)
	}
	if err := r.g.AcceptDefinition("deploy", drift[0].Current); err != nil {
		t.Fatal(err)
	}
	if o := r.call(alice, "deploy", staging); !o.asked {
		t.Fatalf("a changed definition, accepted: %+v; want asked", o)
	}
}

// TestGrantNeverWidensPolicy (negative): a grant made where the policy
// asked is not used where the policy blocks the tool or the arguments
// name a protected path: those calls stay refused, nobody is asked, and
// the grants keep their uses. Two Guards share one store; the grant for
// deploy, which both policies ask about, is used on either (the control).
func TestGrantNeverWidensPolicy(t *testing.T) {
	st := memStore(t)
	lax := strings.Replace(grantPolicy, "  protected_paths: [~/.ssh]\n", "", 1)
	strict := strings.Replace(grantPolicy, "    - tool: nuke\n      action: ask\n", "    - tool: nuke\n      action: block\n", 1)
	a, b := newGrantRig(t, lax, st, nil), newGrantRig(t, strict, st, nil)
	ca, cb := a.connect("alice", nil), b.connect("alice", nil)
	ssh := map[string]any{"cmd": "cat ~/.ssh/id_rsa"}
	a.scope.Store("15m-3")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"nuke", map[string]any{}}, {"run", ssh}, {"deploy", staging}} {
		if o := a.call(ca, c.tool, c.args); !o.ran || !o.asked {
			t.Fatalf("approving %s on the lax guard: %+v", c.tool, o)
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"nuke", map[string]any{}}, {"run", ssh}, {"run", map[string]any{"cmd": "cat $HOME/.ssh/id_rsa"}}} {
		if o := b.call(cb, c.tool, c.args); o.ran || o.asked {
			t.Fatalf("%s %v on the strict guard with a grant: %+v; want refused without asking", c.tool, c.args, o)
		}
	}
	if o := b.call(cb, "deploy", staging); !o.ran || o.asked {
		t.Fatalf("control: deploy on the strict guard: %+v; want the shared grant used", o)
	}
	gs, err := b.g.Grants(context.Background(), gatehouse.GrantPrincipal("alice"))
	if err != nil || len(gs) != 3 {
		t.Fatalf("grants: %+v, %v", gs, err)
	}
	for _, gr := range gs {
		want := 3
		if gr.Tool == "deploy" {
			want = 2
		}
		if gr.Left != want {
			t.Errorf("grant for %s has %d uses left", gr.Tool, gr.Left)
		}
	}
}
