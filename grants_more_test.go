package gatehouse_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/grant"
)

type scopeChannel struct{ choice string }

func (scopeChannel) Name() string { return "scoped" }
func (c scopeChannel) Ask(ctx context.Context, _ *consent.ConsentRequest) (consent.Reply, error) {
	if len(consent.OfferedScopes(ctx)) == 0 {
		return consent.Reply{}, errors.New("no scopes offered")
	}
	return consent.Reply{Decision: consent.Approved, Approver: "alice", Attestation: consent.AttestedHuman, Scope: c.choice}, nil
}

// TestGrantThroughConsent: an ACP consent channel is shown the offered
// scopes; the human's choice makes a grant attested "human"; a scope not
// offered denies the call.
func TestGrantThroughConsent(t *testing.T) {
	for _, choice := range []string{"15m-3", "forever"} {
		_, priv, _ := ed25519.GenerateKey(rand.Reader)
		signer, _ := consent.NewSigner(priv)
		nonces, _ := consent.NewMemoryNonceStore(nil)
		asker, err := consent.NewAsker(scopeChannel{choice}, signer, nonces, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
			Ask:    &gatehouse.AskOptions{Asker: gatehouse.AskConsent(asker, nil)},
			Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {fifteenThree}}, ForUnauthenticated: true},
		})
		var runs int
		c := dialRaw(t, serve(t, g, func(s *mcp.Server) { textTool(s, "deploy", func(map[string]any) string { return "ok" }, &runs) }), "2025-06-18")
		res := c.callTool(1, "deploy", staging)
		gs, _ := g.Grants(context.Background(), gatehouse.LocalGrantPrincipal())
		if choice == "forever" {
			if rpcErr(res) == nil || runs != 0 || len(gs) != 0 {
				t.Fatalf("unoffered scope: %v runs=%d grants=%v", res, runs, gs)
			}
			continue
		}
		if rpcErr(res) != nil || runs != 1 || len(gs) != 1 || gs[0].Attestation != "human" {
			t.Fatalf("offered scope: %v runs=%d grants=%+v", res, runs, gs)
		}
	}
}

// failOn is an audit sink that fails a write containing a marker once
// armed.
type failOn struct {
	mu    sync.Mutex
	armed bool
	mark  string
	buf   bytes.Buffer
}

func (f *failOn) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.armed && bytes.Contains(p, []byte(f.mark)) {
		return 0, errors.New("disk full")
	}
	return f.buf.Write(p)
}

// TestGrantRefundedWhenRefused (DESIGN §3.16): a call that took a grant's
// use and is then refused (here: its decision cannot be audited) gives the
// use back.
func TestGrantRefundedWhenRefused(t *testing.T) {
	sink := &failOn{mark: "Allowed by grant"}
	w, err := audit.New(sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
		Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
			return gatehouse.Answer{Approved: true, Scope: "15m-3"}, nil
		})},
		Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {fifteenThree}}, ForUnauthenticated: true},
		Audit:  w,
	})
	var runs int
	c := dialRaw(t, serve(t, g, func(s *mcp.Server) { textTool(s, "deploy", func(map[string]any) string { return "ok" }, &runs) }), "2025-06-18")
	c.callTool(1, "deploy", staging)
	sink.mu.Lock()
	sink.armed = true
	sink.mu.Unlock()
	if res := c.callTool(2, "deploy", staging); rpcErr(res) == nil || runs != 1 {
		t.Fatalf("a call whose decision cannot be audited: %v runs=%d", res, runs)
	}
	gs, err := g.Grants(context.Background(), gatehouse.LocalGrantPrincipal())
	if err != nil || len(gs) != 1 || gs[0].Left != 3 {
		t.Fatalf("grants after the refused call: %+v, %v; want the use given back (3 left)", gs, err)
	}
}

// TestGrantSessionScope: a session scope is used on the session it was
// made on, not on another session of the same user.
func TestGrantSessionScope(t *testing.T) {
	sess := grant.Scope{ID: "session", Duration: time.Hour, Session: true}
	r := newGrantRig(t, grantPolicy, memStore(t), map[string][]grant.Scope{"deploy": {sess}})
	one, two := r.connect("alice", nil), r.connect("alice", nil)
	r.scope.Store("session")
	r.call(one, "deploy", staging)
	r.scope.Store("")
	for i := range 5 {
		if o := r.call(one, "deploy", staging); o.asked {
			t.Fatalf("use %d on the same session: asked", i)
		}
	}
	if o := r.call(two, "deploy", staging); !o.asked {
		t.Fatal("another session of the same user used the session grant")
	}
}

// TestGrantOptionsValidate: scopes the author cannot mean are refused at New.
func TestGrantOptionsValidate(t *testing.T) {
	p := mustPolicy(t, grantPolicy)
	for name, scopes := range map[string][]grant.Scope{
		"once":         {{ID: "once", Duration: time.Minute}},
		"no duration":  {{ID: "x"}},
		"too long":     {{ID: "x", Duration: grant.MaxDuration + 1}},
		"negative":     {{ID: "x", Duration: time.Minute, Uses: -1}},
		"uppercase id": {{ID: "X", Duration: time.Minute}},
		"twice":        {{ID: "x", Duration: time.Minute}, {ID: "x", Duration: time.Hour}},
	} {
		_, err := gatehouse.New(p, &gatehouse.Options{Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": scopes}}})
		if err == nil || !strings.Contains(err.Error(), "Options.Grants.Offers") {
			t.Errorf("%s: %v, want an error naming Options.Grants.Offers", name, err)
		}
	}
}

// TestGrantSessionScopeNeedsASession: a transport without an MCP session
// id (stdio, in-memory) cannot bind a session grant: the approval covers
// the one call, and the refusal is in the audit log.
func TestGrantSessionScopeNeedsASession(t *testing.T) {
	var buf syncBuffer
	w, err := audit.New(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, grantPolicy), &gatehouse.Options{
		Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
			return gatehouse.Answer{Approved: true, Scope: "session"}, nil
		})},
		Grants: &gatehouse.GrantOptions{Offers: map[string][]grant.Scope{"deploy": {{ID: "session", Duration: time.Hour, Session: true}}}, ForUnauthenticated: true},
		Audit:  w,
	})
	var runs int
	c := dialRaw(t, serve(t, g, func(s *mcp.Server) { textTool(s, "deploy", func(map[string]any) string { return "ok" }, &runs) }), "2025-06-18")
	if res := c.callTool(1, "deploy", staging); rpcErr(res) != nil || runs != 1 {
		t.Fatalf("the approved call: %v", res)
	}
	if gs, _ := g.Grants(context.Background(), ""); len(gs) != 0 {
		t.Fatalf("a session grant without a session: %+v", gs)
	}
	if !strings.Contains(buf.String(), `"event":"GRANT_REFUSED"`) || !strings.Contains(buf.String(), "no MCP session id") {
		t.Fatalf("the refusal is not audited: %s", buf.String())
	}
}
