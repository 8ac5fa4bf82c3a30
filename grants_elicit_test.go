package gatehouse_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// elicitRig is an AddTool deploy tool on an in-memory transport (no bearer
// token), whose client's user answers the approval form with remember.
func elicitRig(t *testing.T, proto string, local bool, remember any) (call func() (ran, asked bool), g *gatehouse.Guard) {
	t.Helper()
	var runs, asks atomic.Int64
	g = mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
		Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {fifteenThree}}, ForUnauthenticated: local},
		Clock:  func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) },
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	type in struct {
		Env string `json:"env"`
	}
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
	})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asks.Add(1)
			field, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)[gatehouse.ScopeInputField].(map[string]any)
			if !strings.Contains(field["description"].(string), "15m-3") {
				t.Errorf("the form does not offer the scope: %v", field)
			}
			content := map[string]any{"approve": true}
			if remember != nil {
				content[gatehouse.ScopeInputField] = remember
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
	}, proto)
	return func() (bool, bool) {
		r, a := runs.Load(), asks.Load()
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: staging})
		return runs.Load() > r, asks.Load() > a
	}, g
}

// TestGrantByElicitation: the approval form offers the server's scopes; a
// scope chosen there makes a grant marked client-attested, used by the
// next calls without asking; "once" or no choice makes none.
func TestGrantByElicitation(t *testing.T) {
	for _, proto := range []string{"2025-06-18", newProtocol} {
		call, g := elicitRig(t, proto, true, "15m-3")
		if ran, asked := call(); !ran || !asked {
			t.Fatalf("%s: approving call ran=%v asked=%v", proto, ran, asked)
		}
		gs, err := g.Grants(context.Background(), gatehouse.LocalGrantPrincipal())
		if err != nil || len(gs) != 1 || gs[0].Attestation != grant.AttestedClient {
			t.Fatalf("%s: grants %+v, %v; want one, client-attested", proto, gs, err)
		}
		for i := range 3 {
			if ran, asked := call(); !ran || asked {
				t.Fatalf("%s: use %d ran=%v asked=%v; want run without asking", proto, i+1, ran, asked)
			}
		}
		if _, asked := call(); !asked {
			t.Fatalf("%s: after three uses the user was not asked", proto)
		}
		for _, choice := range []any{"once", nil} {
			call, g := elicitRig(t, proto, true, choice)
			if ran, _ := call(); !ran {
				t.Fatalf("%s: %v: did not run", proto, choice)
			}
			if gs, _ := g.Grants(context.Background(), ""); len(gs) != 0 {
				t.Fatalf("%s: %v made grants %+v", proto, choice, gs)
			}
		}
	}
}

// TestGrantElicitationScopeNotOffered (negative): an answer choosing a
// scope the server did not offer (or a value that is no scope) denies the
// call and makes no grant. The round trip is driven by hand on 2026-07-28
// so that no client-side schema check stands in for the guard's.
func TestGrantElicitationScopeNotOffered(t *testing.T) {
	var runs atomic.Int64
	g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
		Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {fifteenThree}}, ForUnauthenticated: true},
	})
	ct := serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
		})
	})
	c := dialRaw(t, ct, newProtocol)
	answer := func(id int, choice any) map[string]any {
		first := c.callTool(fmt.Sprint("ask", id), "deploy", staging)
		r, _ := first["result"].(map[string]any)
		state, _ := r["requestState"].(string)
		if !strings.Contains(fmt.Sprint(r["inputRequests"]), gatehouse.ScopeInputField) {
			t.Fatalf("the form has no scope field: %v", first)
		}
		content := map[string]any{"approve": true, gatehouse.ScopeInputField: choice}
		return c.request(id, "tools/call", map[string]any{"name": "deploy", "arguments": staging, "requestState": state,
			"inputResponses": map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "accept", "content": content}}})
	}
	for i, choice := range []any{"forever", "15M-3", "15m-3\u200b", " 15m-3", 3, true, nil, map[string]any{"id": "15m-3"}, []any{"15m-3"}} {
		res := answer(i, choice)
		if e := rpcErr(res); fmt.Sprint(e["code"]) != "-32004" || runs.Load() != 0 {
			t.Fatalf("choice %#v: %v runs=%d; want -32004 and no run", choice, res, runs.Load())
		}
		if gs, _ := g.Grants(context.Background(), ""); len(gs) != 0 {
			t.Fatalf("choice %#v made grants %+v", choice, gs)
		}
	}
	if res := answer(100, "15m-3"); rpcErr(res) != nil || runs.Load() != 1 {
		t.Fatalf("control, an offered scope: %v", res)
	}
	if gs, _ := g.Grants(context.Background(), ""); len(gs) != 1 {
		t.Fatalf("control: grants %+v, want one", gs)
	}
}

// TestGrantNeedsAPrincipal (negative): without a bearer token and without
// ForUnauthenticated the caller is a self-declared client name, which
// never holds grants: the approval covers the one call.
func TestGrantNeedsAPrincipal(t *testing.T) {
	call, g := elicitRig(t, "2025-06-18", false, "15m-3")
	if ran, _ := call(); !ran {
		t.Fatal("the approved call did not run")
	}
	if gs, _ := g.Grants(context.Background(), ""); len(gs) != 0 {
		t.Fatalf("a client name holds grants: %+v", gs)
	}
	if _, asked := call(); !asked {
		t.Fatal("the next call was not asked")
	}
}
