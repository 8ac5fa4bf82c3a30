package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/scope"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// hideUnlessAdmin hides name from tools/list unless the request's token
// has the admin scope: a server whose listing depends on the caller.
func hideUnlessAdmin(s *mcp.Server, name string) {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			ti := auth.TokenInfoFromContext(ctx)
			admin := ti != nil && strings.Contains(strings.Join(ti.Scopes, " "), "admin")
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && lr != nil && !admin {
				var keep []*mcp.Tool
				for _, t := range lr.Tools {
					if t.Name != name {
						keep = append(keep, t)
					}
				}
				c := *lr
				c.Tools = keep
				return &c, nil
			}
			return res, err
		}
	})
}

// BenchmarkRedTeamScopeMask is the guard's cost of a tools/call whose token
// lacks the call's scope (the token has none), on a server that lists n
// tools: to a listed tool the policy allows, and to a tool the server
// does not have (which the policy allows by name).
func BenchmarkRedTeamScopeMask(b *testing.B) {
	for _, n := range []int{1, 1000} {
		for _, target := range []string{"listed", "missing"} {
			b.Run(fmt.Sprintf("tools=%d/%s", n, target), func(b *testing.B) {
				sp, err := scope.Parse([]byte(scopeDoc))
				if err != nil {
					b.Fatal(err)
				}
				o := &gatehouse.Options{DLP: &gatehouse.DLPOptions{Off: true}, Scopes: &gatehouse.ScopeOptions{Policy: sp}}
				g := mustGuard(b, mustPolicy(b, hiddenPolicy), o)
				list := &mcp.ListToolsResult{}
				for i := range n - 1 {
					list.Tools = append(list.Tools, &mcp.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: strings.Repeat("d", 200),
						InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)})
				}
				list.Tools = append(list.Tools, &mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)})
				next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "tools/list" {
						return list, nil
					}
					return &mcp.CallToolResult{}, nil
				}
				st, _ := mcp.NewInMemoryTransports()
				ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				recv, _ := g.Middleware()
				h := recv(next)
				name := "deploy"
				if target == "missing" {
					name = "ghost_op"
				}
				req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(`{"env":"dev"}`)},
					Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}}
				ctx := context.Background()
				if _, err := h(ctx, "tools/call", req); err == nil {
					b.Fatal("the call was not refused")
				}
				b.ReportAllocs()
				for b.Loop() {
					h(ctx, "tools/call", req)
				}
			})
		}
	}
}

// listGate is a middleware below the Guard that, once armed, holds every
// tools/list inside it until released, counting how many are inside.
type listGate struct {
	armed   atomic.Bool
	inside  atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func newListGate(s *mcp.Server) *listGate {
	lg := &listGate{entered: make(chan struct{}, 16), release: make(chan struct{})}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && lg.armed.Load() {
				lg.inside.Add(1)
				lg.entered <- struct{}{}
				<-lg.release
			}
			return next(ctx, method, req)
		}
	})
	return lg
}

// TestRedTeamScopeMask_InFlightCapBoundsMaskingWork: a call short of
// scopes is now decided on the policy, the session's tools/list (a walk
// of the server's listing, and for a name the server lacks a refresh of
// the guard's tool index that digests every definition) and the trust
// store, before it is refused. A call with the scopes does that work
// only after taking its in-flight slot; the call short of scopes must be
// bounded by the same caps, else a token without scopes makes the server
// list its tools as often and as concurrently as it likes (3 ms and 2 MB
// per call on a server of 1,000 tools, BenchmarkRedTeamScopeMask). With
// PerAgent 1, the agent's second call, while its first is inside the
// listing, is refused at once (-32002) instead of listing too. On
// 611d637 the second call entered the listing. Near misses: once the
// first returns, a lone call short of scopes gets the masked refusal
// again (the slot was released), and a listed tool the scope challenge.
func TestRedTeamScopeMask_InFlightCapBoundsMaskingWork(t *testing.T) {
	sp, err := scope.Parse([]byte(scopeDoc))
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, hiddenPolicy), &gatehouse.Options{Scopes: &gatehouse.ScopeOptions{Policy: sp},
		Limits: &gatehouse.LimitOptions{InFlight: &ratelimit.InFlightOptions{PerAgent: 1}}})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var runs int
	textTool(s, "status", func(map[string]any) string { return "status ran" }, &runs)
	lg := newListGate(s)
	g.Install(s)
	sessions := make([]*mcp.ClientSession, 2)
	for i := range sessions {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		sessions[i] = cs
	}
	call := func(cs *mcp.ClientSession, tool string) error {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		return withData(err)
	}
	lg.armed.Store(true)
	first := make(chan error, 1)
	go func() { first <- call(sessions[0], "ghost_op") }()
	<-lg.entered // the first call is inside the listing, holding its slot
	second := make(chan error, 1)
	go func() { second <- call(sessions[1], "ghost_op") }()
	select {
	case err := <-second:
		if err == nil || !strings.Contains(err.Error(), "in flight") {
			t.Errorf("second call: %v, want the in-flight cap's refusal", err)
		}
		second = nil
	case <-lg.entered:
		t.Errorf("a second call short of scopes listed the server's tools beyond the agent's in-flight cap of 1")
	}
	lg.armed.Store(false)
	close(lg.release)
	if err := <-first; err == nil || !strings.Contains(err.Error(), "tools/list for this session") {
		t.Errorf("first call: %v", err)
	}
	if second != nil {
		<-second // it entered the listing: it answers once released
	}
	if err := call(sessions[1], "ghost_op"); err == nil || !strings.Contains(err.Error(), "tools/list for this session") {
		t.Errorf("near miss, a lone call once the slot is free: %v", err)
	}
	if err := call(sessions[1], "status"); err == nil || !strings.Contains(err.Error(), "mcp:tools") {
		t.Errorf("near miss, a listed tool: %v, want the scope denial", err)
	}
	if runs != 0 {
		t.Fatalf("status ran %d times", runs)
	}
}

// withData is err with a JSON-RPC error's data in its text.
func withData(err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return fmt.Errorf("%d %s %s", je.Code, je.Message, je.Data)
	}
	return err
}

// TestRedTeamScopeMask_ObserverAndAuditOfMaskedRefusals: a call short of
// scopes that is refused anyway is audited once, with the refusal sent
// (not the scope denial), and reported to the Observer once, by the
// stage whose refusal it is ("policy", "trust") as a call with the
// scopes is: a dashboard of scope denials must not count protected-path
// attempts, unlisted tools or suspended agents. The scope denial itself
// is still reported by "scope". On 611d637 every masked refusal was
// reported with Stage "scope".
func TestRedTeamScopeMask_ObserverAndAuditOfMaskedRefusals(t *testing.T) {
	store, err := trust.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ss := hiddenRig(t, &gatehouse.Options{Observer: rec, Trust: &gatehouse.TrustOptions{Store: store}}, false)
	cases := []struct {
		name      string
		scopes    []string
		tool      string
		args      map[string]any
		suspended bool
		outcome   string // Observer outcome/stage
		decision  string // the audit event's decision and failed rule
	}{
		{"protected path", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev", "file": "~/.ssh/id_rsa"}, false, "PROTECTED_PATH/policy", `"error_code":-32007`},
		{"tool the policy does not allow", []string{"mcp:tools"}, "admin_reset", map[string]any{}, false, "BLOCK/policy", `"decision":"BLOCK"`},
		{"tool hidden from the session", nil, "secret_op", map[string]any{}, false, "BLOCK/policy", `"decision":"BLOCK"`},
		{"suspended agent", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev"}, true, "BLOCK/trust", `"decision":"BLOCK"`},
		{"near miss: scope short", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev"}, false, "BLOCK/scope", `"failed_rule":"scope"`},
	}
	for _, c := range cases {
		level := trust.Untrusted
		if c.suspended {
			level = trust.Suspended
		}
		if err := store.Set(context.Background(), "user:alice", level); err != nil {
			t.Fatal(err)
		}
		rec.mu.Lock()
		rec.decisions = nil
		rec.mu.Unlock()
		before := strings.Count(ss.log.String(), `"method":"tools/call"`)
		resp, body := ss.post(t, ss.as.issue(c.scopes...), newHeaders(c.tool), newCallBody(c.tool, c.args))
		log := ss.log.String()
		events := strings.Split(strings.TrimSpace(log), "\n")
		last := events[len(events)-1]
		if n := strings.Count(log, `"method":"tools/call"`) - before; n != 1 || !strings.Contains(last, c.decision) {
			t.Errorf("%s: %d audit events, the last %s; want one with %s", c.name, n, last, c.decision)
		}
		rec.mu.Lock()
		var got []string
		for _, d := range rec.decisions {
			if d.Method == "tools/call" {
				got = append(got, d.Outcome+"/"+d.Stage)
			}
		}
		rec.mu.Unlock()
		if len(got) != 1 || got[0] != c.outcome {
			t.Errorf("%s: Observer decisions %v, want [%s] (%d %s)", c.name, got, c.outcome, resp.StatusCode, body)
		}
	}
	if n := ss.runs.Load(); n != 0 {
		t.Fatalf("tools ran %d times", n)
	}
}
