package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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

// The red team of 611d637 (the scope stage sends the refusal a call
// would meet anyway; ScopeChallenges answers the stage's denial): what a
// call short of scopes costs and tells, and how it is recorded. Passkey
// challenges and asks: redteam_scopemask_ask_test.go; the 403 and the
// benchmark: redteam_scopemask_http_test.go.

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
// reported with Stage "scope" (and the untrusted agent's call, whose
// consent no Asker can give, was challenged).
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
		{"untrusted agent, no Asker", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev"}, false, "BLOCK/answer", `"error_code":-32004`},
		{"near miss: scope short", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev"}, false, "BLOCK/scope", `"failed_rule":"scope"`},
	}
	for _, c := range cases {
		level := trust.Trusted
		switch {
		case c.suspended:
			level = trust.Suspended
		case strings.HasPrefix(c.name, "untrusted"):
			level = trust.Untrusted // consent needed, and no Asker to give it
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

// TestRedTeamScopeMask_NoMoreThanAScopedClientLearns: the masking sends
// a call short of scopes the refusal a call with every scope gets, so it
// tells such a client nothing a client with the scopes does not learn:
// for each call refused anyway, the answer to a token without scopes is
// byte for byte the answer to a token with them. That includes a tool the
// server hides from this caller but listed to another (so the guard
// pinned it): it answers -32013 (pinned, not listed) where a tool the
// server lacks answers -32603, to both tokens alike (pinning tells them
// apart by design, pinstage.go notListed); before 611d637 a token without
// scopes got the scope denial for both. Other spellings of a listed tool
// name it (-32602) to both. Near miss: the allowed call differs (the
// challenge, then the run).
func TestRedTeamScopeMask_NoMoreThanAScopedClientLearns(t *testing.T) {
	ss := newScopeRig(t, scopeRig{policy: hiddenPolicy, setup: func(s *mcp.Server, runs *atomic.Int32) {
		s.AddTool(&mcp.Tool{Name: "secret_op", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "secret_op ran"}}}, nil
		})
		hideUnlessAdmin(s, "secret_op")
	}})
	// A session whose token has admin lists secret_op: the guard pins it.
	if resp, body := ss.post(t, ss.as.issue("mcp:tools", "admin"), newHeaders("status"), newCallBody("status", map[string]any{})); resp.StatusCode != http.StatusOK {
		t.Fatalf("admin's status: %d %s", resp.StatusCode, body)
	}
	full := []string{"mcp:tools", "deploy:write", "deploy:prod"}
	cases := []struct {
		name  string
		short []string
		tool  string
		args  map[string]any
		want  string
	}{
		{"pinned tool hidden from this caller", nil, "secret_op", map[string]any{}, "-32013"},
		{"no such tool", nil, "ghost_op", map[string]any{}, "-32603"},
		{"tool the policy does not allow", nil, "admin_reset", map[string]any{}, "-32001"},
		{"protected path", []string{"mcp:tools"}, "deploy", map[string]any{"env": "dev", "file": "~/.ssh/config"}, "-32007"},
		{"another spelling of a listed tool", nil, "DEPLOY", map[string]any{"env": "dev"}, "-32602"},
		{"another spelling of the pinned hidden tool", nil, "Secret_Op", map[string]any{}, "-32013"}, // pins are by normalized name
	}
	for _, c := range cases {
		resp1, short := ss.post(t, ss.as.issue(c.short...), newHeaders(c.tool), newCallBody(c.tool, c.args))
		resp2, scoped := ss.post(t, ss.as.issue(full...), newHeaders(c.tool), newCallBody(c.tool, c.args))
		if leak := scopeLeak(resp1, short); leak != "" || short != scoped || resp1.StatusCode != resp2.StatusCode || !strings.Contains(short, c.want) {
			t.Errorf("%s: without scopes %d %s (%s)\nwith them %d %s; want both %s", c.name, resp1.StatusCode, short, leak, resp2.StatusCode, scoped, c.want)
		}
	}
	resp, body := ss.post(t, ss.as.issue("mcp:tools"), newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "dev"}))
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("near miss, scope short: %d %s", resp.StatusCode, body)
	}
	if resp, body := ss.post(t, ss.as.issue(full...), newHeaders("deploy"), newCallBody("deploy", map[string]any{"env": "dev"})); !strings.Contains(body, "deploy ran") {
		t.Errorf("near miss, scoped: %d %s", resp.StatusCode, body)
	}
	if n := ss.runs.Load(); n != 2 {
		t.Fatalf("tools ran %d times, want 2 (admin's status, the scoped deploy)", n)
	}
}

// TestRedTeamScopeMask_ScopeShortCallsLeaveToolCapsAlone: the in-flight
// slot a call short of scopes holds while it is decided counts against
// its agent and the total, and against one per-tool count all such calls
// share, never against the tool's own cap: a token short of deploy's
// scopes cannot fill deploy's cap and so refuse the calls that have
// them. With PerTool 1, alice's deploy (her token lacks deploy:write) is
// held inside the listing refusedAnyway reads; bob's deploy, whose token
// has the scope, still runs. Fails with the slot taken under the tool's
// name (the first fix of this red team). A third token short of the
// scope meanwhile is refused for load, the reason naming the shared
// count. Near miss: alice's call is then refused with the scope denial.
func TestRedTeamScopeMask_ScopeShortCallsLeaveToolCapsAlone(t *testing.T) {
	sp, err := scope.New(scope.Config{Tools: []scope.Tool{{Name: "deploy", Requirement: scope.Requirement{All: []string{"deploy:write"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, hiddenPolicy), &gatehouse.Options{DLP: &gatehouse.DLPOptions{Off: true}, Scopes: &gatehouse.ScopeOptions{Policy: sp},
		Limits: &gatehouse.LimitOptions{InFlight: &ratelimit.InFlightOptions{PerTool: 1}}})
	list := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	var armed atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	next := func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			if armed.CompareAndSwap(true, false) {
				close(entered)
				<-release
			}
			return list, nil
		}
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	}
	st, _ := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	recv, _ := g.Middleware()
	h := recv(next)
	call := func(user string, scopes ...string) (mcp.Result, error) {
		return h(context.Background(), "tools/call", &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "deploy", Arguments: json.RawMessage(`{}`)},
			Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user, Scopes: scopes}}})
	}
	armed.Store(true)
	held := make(chan error, 1)
	go func() {
		_, err := call("alice")
		held <- withData(err)
	}()
	<-entered // alice's call is being decided, holding its slot
	if res, err := call("bob", "deploy:write"); err != nil || runs.Load() != 1 {
		t.Errorf("bob's call with the scope while alice's call short of it is decided: %v %v, runs %d", res, withData(err), runs.Load())
	}
	// The shared count is full (PerTool 1): carol's call short of the
	// scope is refused for load, naming the shared cap.
	if _, err := call("carol"); err == nil || !strings.Contains(withData(err).Error(), "calls in flight whose tokens lack a scope") {
		t.Errorf("carol's call short of the scope over the shared cap: %v", withData(err))
	}
	close(release)
	if err := <-held; err == nil || !strings.Contains(err.Error(), "deploy:write") {
		t.Errorf("alice's call: %v, want the scope denial", err)
	}
}
