package gatehouse_test

// Attacks on the tools/call pipeline (issue 13 red team). Each test is
// named after the attack and fails while the attack works.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// A tool that collides with an indexed one, added after Install, must deny
// calls to either spelling whatever the order of the calls (the index is
// refreshed only for names it has not seen, so the known name still ran).
func TestRedteamCollisionAddedLaterKnownNameFirst(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	countingTool(s, "read_file", &runs)
	g.Install(s)
	countingTool(s, "READ_FILE", &runs) // added after Install
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := dialRaw(t, ct, "2025-06-18")
	for i, name := range []string{"read_file", "READ_FILE", "read_file"} {
		if res := c.callTool(i, name, map[string]any{}); rpcErr(res) == nil {
			t.Errorf("call %d to %s ran although READ_FILE collides with it: %v", i, name, res)
		}
	}
	if runs.Load() != 0 {
		t.Fatalf("colliding tools ran %d times", runs.Load())
	}
}

// Same as fault 1 but with the spelling the issue names: AddTool("Wipe") on
// a server that later gets a plain "wipe": the plain tool must not run.
// (TestAskNotSkippedAcrossServers' second half uses "Wipe_Now", which does
// not normalize to "wipe" and passed on the old code too.)
func TestRedteamAskSameServerOtherSpelling(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "Wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	g.Install(s)
	countingTool(s, "wipe", &runs)
	for _, proto := range []string{"2025-06-18", newProtocol} {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		res := dialRaw(t, ct, proto).callTool(1, "wipe", map[string]any{})
		if rpcErr(res) == nil || runs.Load() != 0 {
			t.Fatalf("%s: plain wipe next to AddTool Wipe: %v, ran %d times", proto, res, runs.Load())
		}
	}
}

// Sessionless (2026-07-28) calls must find colliding tools added after
// Install as session calls do.
func TestRedteamSessionlessCollisionAddedLater(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	g.Install(s)
	countingTool(s, "Read_File", &runs)
	countingTool(s, "read_file", &runs)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := dialRaw(t, ct, newProtocol)
	for i, name := range []string{"read_file", "Read_File"} {
		if res := c.callTool(i, name, map[string]any{}); rpcErr(res) == nil {
			t.Errorf("sessionless call to %s ran: %v", name, res)
		}
	}
}

// AddTool's tool replaced by a plain tool of the same exact name (go-sdk
// replaces on re-add): the pipeline leaves the ask to the AddTool wrapper,
// which no longer runs, so the plain handler must not run unasked.
func TestRedteamAddToolReplacedByPlainTool(t *testing.T) {
	f := newFixture(t, askWipePolicy, nil)
	var runs atomic.Int64
	ct := serve(t, f.g, func(s *mcp.Server) {
		gatehouse.AddTool(s, f.g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		countingTool(s, "wipe", &runs) // same exact name: replaces the AddTool tool
	})
	res := dialRaw(t, ct, newProtocol).callTool(1, "wipe", map[string]any{})
	if runs.Load() != 0 {
		t.Fatalf("an ask tool ran unasked (and uncommitted, unaudited as allowed): %v", res)
	}
}

// An audit write that fails when the call commits denies the call; the
// denied call must not be charged nor consume its step (QWED §9.4-9.5).
func TestRedteamAuditFailureAtCommitCharges(t *testing.T) {
	bw := &brokenWriter{}
	w, err := audit.New(bw, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := ratelimit.NewGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, basePolicy, &gatehouse.Options{Audit: w, Limits: &gatehouse.LimitOptions{Budget: b, Conversations: cg}})
	c := dialRaw(t, f.ct, "2025-06-18")
	call := func(id, step int) map[string]any {
		return c.request(id, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"x": id},
			"_meta": map[string]any{"conversation_id": "c1", "step_number": step}})
	}
	bw.broken.Store(true)
	if res := call(1, 1); fmt.Sprint(rpcErr(res)["code"]) != "-32603" {
		t.Fatalf("with the audit log down: %v", res)
	}
	// An audit Writer stays unusable after a failed write (audit fails
	// closed), so look at the budget and the step through a second guard
	// that shares them, with a working log.
	f2 := newFixture(t, basePolicy, &gatehouse.Options{Limits: &gatehouse.LimitOptions{Budget: b, Conversations: cg}})
	c2 := dialRaw(t, f2.ct, "2025-06-18")
	res := c2.request(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"x": 2},
		"_meta": map[string]any{"conversation_id": "c1", "step_number": 1}})
	if rpcErr(res) != nil || f2.runs.Load() != 1 {
		t.Fatalf("the call denied for the audit failure was charged or consumed step 1: %v", res)
	}
}

// Argument names are attacker text too: a secret used as an argument name
// of a strict tool must not be written to the audit log (reason,
// failed_arg), no more than a secret argument value is.
func TestRedteamSecretInArgumentNameAudited(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo]
  strict_args_default: true
  tool_rules:
    - tool: echo
      allow_args: {text: ".*"}
`
	f := newFixture(t, src, nil)
	res := dialRaw(t, f.ct, "2025-06-18").callTool(1, "echo", map[string]any{fakeKey: "x"})
	if rpcErr(res) == nil {
		t.Fatalf("strict args: %v", res)
	}
	if strings.Contains(f.log.String(), fakeKey) {
		t.Fatalf("the audit log holds the secret: %s", f.log.String())
	}
}

// A secret named as the tool is written to the audit log as the event's
// tool.
func TestRedteamSecretAsToolNameAudited(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	dialRaw(t, f.ct, "2025-06-18").callTool(1, fakeKey, map[string]any{})
	if strings.Contains(strings.ToUpper(f.log.String()), fakeKey) {
		t.Fatalf("the audit log holds the secret: %s", f.log.String())
	}
}

// The elicitation question never shows a secret, spelled with JSON escapes
// or not. Since the red team of issue 16 (redteam_prompthide_test.go) such a
// call is not asked at all: a question with a redacted span would hide what
// it asks about.
func TestRedteamEscapedSecretInElicitationQuestion(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	})
	c := dialRaw(t, ct, newProtocol)
	escaped := json.RawMessage(`{"key":"AKIA\u0049OSFODNN7EXAMPLE"}`)
	res := c.callTool(1, "wipe", escaped)
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "inputRequests") || !strings.Contains(string(raw), "aws-access-key-id") {
		t.Fatalf("want a denial naming the rule, not a question: %s", raw)
	}
	q := string(raw)
	if strings.Contains(q, `AKIA\\u0049OSFODNN7EXAMPLE`) || strings.Contains(q, `AKIA\u0049OSFODNN7EXAMPLE`) || strings.Contains(q, fakeKey) {
		t.Fatalf("the question shows the secret: %s", q)
	}
}

// One Guard serving a server per session or per request (go-sdk's
// StreamableHTTPHandler getServer) must not keep every server alive.
func TestRedteamGuardRetainsServers(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, basePolicy), nil)
	var ptrs []weak.Pointer[mcp.Server]
	for i := 0; i < 20; i++ {
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		var runs atomic.Int64
		countingTool(s, "echo", &runs)
		g.Install(s)
		ptrs = append(ptrs, weak.Make(s))
	}
	for i := 0; i < 5; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	alive := 0
	for _, p := range ptrs {
		if p.Value() != nil {
			alive++
		}
	}
	runtime.KeepAlive(g)
	if alive > 0 {
		t.Fatalf("%d of %d servers that nothing uses any more are kept alive by the Guard", alive, len(ptrs))
	}
}

// Every method with null, absent and empty params: never a crash, always
// a JSON-RPC answer.
func TestRedteamNilParamsEveryMethod(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	methods := []string{"tools/call", "tools/list", "prompts/get", "prompts/list", "resources/read", "resources/list",
		"resources/subscribe", "resources/unsubscribe", "resources/templates/list", "completion/complete", "logging/setLevel",
		"ping", "server/discover", "approval/enroll", "approval/challenge", "initialize"}
	for _, proto := range []string{"2025-06-18", newProtocol} {
		c := dialRaw(t, serve(t, f.g, f.setup), proto)
		for i, m := range methods {
			for j, p := range []any{nil, map[string]any{}} {
				res := c.request(fmt.Sprintf("%d-%d", i, j), m, p)
				if res["error"] == nil && res["result"] == nil {
					t.Errorf("%s %s params %v: %v", proto, m, p, res)
				}
			}
		}
	}
}

// Every string of a tool result reaches the client: the result's _meta, a
// content item's _meta, an embedded resource's URI. DLP must redact them
// all, not only the text fields it walks.
func TestRedteamSecretInResultMetaAndURI(t *testing.T) {
	for name, res := range map[string]*mcp.CallToolResult{
		"result _meta":       {Meta: mcp.Meta{"debug": "key " + fakeKey}, Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}},
		"content _meta":      {Content: []mcp.Content{&mcp.TextContent{Text: "ok", Meta: mcp.Meta{"k": fakeKey}}}},
		"embedded URI":       {Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "https://h/x?key=" + fakeKey, Text: "ok"}}}},
		"input request text": {InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Mode: "form", Message: "paste " + fakeKey, RequestedSchema: map[string]any{"type": "object"}}}},
	} {
		t.Run(name, func(t *testing.T) {
			g := mustGuard(t, mustPolicy(t, basePolicy), nil)
			ct := serve(t, g, func(s *mcp.Server) {
				s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return res, nil
				})
			})
			got := dialRaw(t, ct, newProtocol).callTool(1, "echo", map[string]any{})
			raw, _ := json.Marshal(got)
			if strings.Contains(string(raw), fakeKey) {
				t.Fatalf("the secret reached the client: %.400s", raw)
			}
		})
	}
}

// A handler's error, wrapped or as a JSON-RPC error, is redacted.
func TestRedteamSecretInHandlerError(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, basePolicy), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("connecting with %s: refused", fakeKey)
		})
		s.AddTool(&mcp.Tool{Name: "boom", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic(fakeKey)
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	for i, tool := range []string{"echo", "boom"} {
		raw, _ := json.Marshal(c.callTool(i, tool, map[string]any{}))
		if strings.Contains(string(raw), fakeKey) {
			t.Fatalf("%s: the secret reached the client: %s", tool, raw)
		}
	}
}

// Two asks of one agent both pass the budget check while their humans
// decide; the second is refused when it is charged. The refused call must
// not consume its conversation step (QWED §9.4: a denial releases it); the
// pipeline commits the step before it charges.
func TestRedteamBudgetRefusedAtChargeConsumesStep(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo]
  tool_rules:
    - tool: deploy
      action: ask
`
	cg, err := ratelimit.NewGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ratelimit.NewBudget(ratelimit.Limits{CostPerDay: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var waiting sync.WaitGroup
	waiting.Add(2)
	// Both calls pass the budget check and wait for their humans; step 1's
	// human answers first (it is charged and committed), then step 2's,
	// whose charge is refused: step 2 must still be usable.
	release := map[string]chan struct{}{"1": make(chan struct{}), "2": make(chan struct{})}
	asker := gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		waiting.Done()
		<-release[fmt.Sprint(r.Args["n"])]
		return gatehouse.Answer{Approved: true}, nil
	})
	usage := func(c gatehouse.Call) ratelimit.Usage {
		if c.Tool == "deploy" {
			return ratelimit.Usage{Cost: 1}
		}
		return ratelimit.Usage{}
	}
	f := newFixture(t, src, &gatehouse.Options{Limits: &gatehouse.LimitOptions{Conversations: cg, Budget: b, Usage: usage}, Ask: &gatehouse.AskOptions{Asker: asker}})
	call := func(c *rawConn, id, step int, tool string) map[string]any {
		return c.request(id, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"n": id},
			"_meta": map[string]any{"conversation_id": "c1", "step_number": step}})
	}
	a1, a2 := f.agent(t, "same"), f.agent(t, "same")
	var r1, r2 map[string]any
	var wg1, wg2 sync.WaitGroup
	wg1.Add(1)
	wg2.Add(1)
	go func() { defer wg1.Done(); r1 = call(a1, 1, 1, "deploy") }()
	go func() { defer wg2.Done(); r2 = call(a2, 2, 2, "deploy") }()
	waiting.Wait()
	close(release["1"])
	wg1.Wait()
	close(release["2"])
	wg2.Wait()
	if rpcErr(r1) != nil || rpcErr(r2) == nil || !strings.Contains(fmt.Sprint(rpcErr(r2)["data"]), "BUDGET") {
		t.Fatalf("step 1 should run and step 2 be refused by the budget: %v / %v", r1, r2)
	}
	if res := call(a1, 3, 2, "echo"); rpcErr(res) != nil {
		t.Fatalf("step 2, refused by the budget, was consumed: %v", res)
	}
}

// An approval given for a tool on one server must not run the tool of
// the same name on another server of the same Guard (the question never
// says which server; the signed state does not bind it). Servers are told
// apart by their name and version (replicas of one server share them, so
// an approval verifies on any replica) and by the tool's definition.
func TestRedteamElicitationStateAcrossServers(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	var runsA, runsB atomic.Int64
	server := func(name string, runs *atomic.Int64) *rawConn {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil, nil
		})
		g.Install(s)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return dialRaw(t, ct, newProtocol)
	}
	a, b := server("staging", &runsA), server("production", &runsB)
	args := map[string]any{"target": "scratch"}
	r, _ := a.callTool(1, "wipe", args)["result"].(map[string]any)
	state, _ := r["requestState"].(string)
	if state == "" {
		t.Fatalf("no elicitation on server A: %v", r)
	}
	yes := map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}
	res := b.request(2, "tools/call", map[string]any{"name": "wipe", "arguments": args, "requestState": state, "inputResponses": yes})
	if runsB.Load() != 0 {
		t.Fatalf("server A's approval ran server B's wipe: %v", res)
	}
}

// A JSON-RPC batch on protocol 2025-03-26 (which allows batches) over a
// byte stream: each request of the batch is decided on its own; a blocked
// or differently spelled tool hidden in a batch never runs.
func TestRedteamBatchOnStream(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	f.setup(s)
	f.g.Install(s)
	send, read := byteStream(t, s)
	send(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"never","arguments":{}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"NEVER","arguments":{}}},` +
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"unlisted","arguments":{}}}]`)
	got := read()
	for !strings.Contains(got, `"id":4`) {
		got += read()
	}
	if f.runs.Load() != 1 {
		t.Fatalf("%d tools ran from the batch (only echo may): %s", f.runs.Load(), got)
	}
}

// The elicitation question is what the human approves: every argument
// must be visible in it. Padding an earlier argument past the question's
// 1000-byte cut hid the one that matters.
func TestRedteamArgumentHiddenPastQuestionCut(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	ct := serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	})
	res := dialRaw(t, ct, newProtocol).callTool(1, "wipe", map[string]any{"a_note": "routine cleanup of scratch files " + strings.Repeat(" ", 1000), "target": "/var/lib/postgres"})
	r, _ := res["result"].(map[string]any)
	irs, _ := r["inputRequests"].(map[string]any)
	ir, _ := irs[gatehouse.ApprovalInputID].(map[string]any)
	p, _ := ir["params"].(map[string]any)
	q, _ := p["message"].(string)
	if q == "" {
		t.Fatalf("no question: %v", res)
	}
	if !strings.Contains(q, "target") || !strings.Contains(q, "/var/lib/postgres") {
		t.Fatalf("the human is asked without seeing the target argument: %q", q)
	}
}
