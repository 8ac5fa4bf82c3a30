package gatehouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

const basePolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo, boom, secret, list_me]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: limited
      rate_limit: 2/minute
    - tool: deploy
      action: ask
      allow_args: {env: "^(staging|prod)$"}
    - tool: never
      action: block
  dlp:
    patterns:
      - {name: AWS Key, regex: "AKIA[0-9A-Z]{16}"}
`

const fakeKey = "AKIA" + "IOSFODNN7EXAMPLE"

// fixture is a guarded server with the usual tools.
type fixture struct {
	runs  atomic.Int64
	ct    mcp.Transport
	log   *syncBuffer
	g     *gatehouse.Guard
	setup func(*mcp.Server)
}

// agent connects another client, with its own server session, as name.
func (f *fixture) agent(t *testing.T, name string) *rawConn {
	t.Helper()
	c := connectRaw(t, serve(t, f.g, f.setup))
	p := initializeParams("2025-06-18")
	p["clientInfo"] = map[string]any{"name": name, "version": "1"}
	if r := c.request("i", "initialize", p); rpcErr(r) != nil {
		t.Fatal(r)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

// toolEvents is events restricted to tools/call decisions and DLP events.
func (f *fixture) toolEvents(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range f.events(t) {
		if e["method"] == "tools/call" {
			out = append(out, e)
		}
	}
	return out
}

func newFixture(t *testing.T, src string, o *gatehouse.Options) *fixture {
	t.Helper()
	f := &fixture{log: &syncBuffer{}}
	if o == nil {
		o = &gatehouse.Options{}
	}
	if o.Audit == nil {
		w, err := audit.New(f.log, nil)
		if err != nil {
			t.Fatal(err)
		}
		o.Audit = w
	}
	f.g = mustGuard(t, mustPolicy(t, src), o)
	f.setup = func(s *mcp.Server) {
		for _, name := range []string{"echo", "limited", "deploy", "never", "unlisted", "list_me"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				f.runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "args " + string(req.Params.Arguments)}}}, nil
			})
		}
		s.AddTool(&mcp.Tool{Name: "boom", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.runs.Add(1)
			panic("handler bug with " + fakeKey)
		})
	}
	f.ct = serve(t, f.g, f.setup)
	return f
}

// events decodes the audit log written so far.
func (f *fixture) events(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(f.log.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		out = append(out, m)
	}
	if _, err := audit.Verify(bytes.NewReader(f.log.Bytes()), nil); err != nil {
		t.Fatalf("the audit log does not verify: %v", err)
	}
	return out
}

func TestPanicIsDeniedAndServerKeepsServing(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "boom", map[string]any{})
	e := rpcErr(res)
	if e == nil || fmt.Sprint(e["code"]) != "-32603" || strings.Contains(fmt.Sprint(e), fakeKey) {
		t.Fatalf("panic: %v", res)
	}
	if res := c.callTool(2, "echo", map[string]any{"a": 1}); rpcErr(res) != nil || resultText(res) != `args {"a":1}` {
		t.Fatalf("after the panic: %v", res)
	}
	ev := f.toolEvents(t)
	if len(ev) != 3 || ev[0]["decision"] != "ALLOW" || ev[1]["decision"] != "BLOCK" || ev[1]["tool"] != "boom" || !strings.Contains(fmt.Sprint(ev[1]["metadata"]), "failed while handling") {
		t.Errorf("audit: %v", ev)
	}
	if strings.Contains(f.log.String(), fakeKey) {
		t.Error("the panic value reached the audit log")
	}
}

func TestArgumentsMustBeAnObject(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	for i, args := range []any{[]any{1, 2}, "text", 42, true} {
		res := c.callTool(i, "echo", args)
		e := rpcErr(res)
		if e == nil || fmt.Sprint(e["code"]) != "-32602" {
			t.Errorf("arguments %v: %v", args, res)
		}
	}
	if f.runs.Load() != 0 {
		t.Errorf("the tool ran %d times on bad arguments", f.runs.Load())
	}
	if res := c.callTool(9, "echo", nil); rpcErr(res) != nil {
		t.Errorf("absent arguments are an empty object: %v", res)
	}
}

func TestDenialsHaveAIPShape(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	cases := []struct {
		tool   string
		args   map[string]any
		code   string
		msg    string
		reason string
	}{
		{"unlisted", nil, "-32001", "Forbidden", "Tool not in allowed_tools list"},
		{"never", nil, "-32001", "Forbidden", "Tool is blocked by a tool rule"},
		{"echo", map[string]any{"p": "cat ~/.ssh/id_rsa"}, "-32007", "Access denied: protected path", `Argument "p" names a protected path`},
		{"deploy", map[string]any{"env": "staging"}, "-32004", "User denied", "no approver is configured"},
	}
	for i, tc := range cases {
		res := c.callTool(i, tc.tool, tc.args)
		e := rpcErr(res)
		data, _ := e["data"].(map[string]any)
		if fmt.Sprint(e["code"]) != tc.code || e["message"] != tc.msg || data["tool"] != tc.tool || !strings.Contains(fmt.Sprint(data["reason"]), tc.reason) {
			t.Errorf("%s: %v", tc.tool, res)
		}
	}
	if f.runs.Load() != 0 {
		t.Errorf("denied calls ran %d times", f.runs.Load())
	}
	res := c.request(99, "resources/list", map[string]any{})
	if e := rpcErr(res); fmt.Sprint(e["code"]) != "-32006" || e["message"] != "Method not allowed" {
		t.Errorf("method: %v", res)
	}
	ev := f.toolEvents(t)
	for _, e := range f.events(t) {
		if e["method"] == "resources/list" {
			ev = append(ev, e)
		}
	}
	if len(ev) != 5 {
		t.Fatalf("%d audit events, want 5 (one per decision)", len(ev))
	}
	for _, e := range ev {
		if e["decision"] != "BLOCK" || e["violation"] != true || e["direction"] != "upstream" || e["policy_mode"] != "enforce" {
			t.Errorf("event %v", e)
		}
	}
	if ev[2]["failed_arg"] != "p" {
		t.Errorf("protected path event: %v", ev[2])
	}
}

func TestDenyAsToolResult(t *testing.T) {
	f := newFixture(t, basePolicy, &gatehouse.Options{DenyAsToolResult: true})
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "unlisted", nil)
	r, _ := res["result"].(map[string]any)
	if rpcErr(res) != nil || r["isError"] != true || resultText(res) != "gatehouse: Forbidden: Tool not in allowed_tools list" {
		t.Fatalf("%v", res)
	}
	if e := rpcErr(c.request(2, "resources/list", map[string]any{})); fmt.Sprint(e["code"]) != "-32006" {
		t.Errorf("methods still get JSON-RPC errors: %v", e)
	}
}

func TestRateLimitPerAgentAndTool(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFixture(t, basePolicy, &gatehouse.Options{Clock: func() time.Time { return now }})
	a := dialRaw(t, f.ct, "2025-06-18") // client "raw-agent"
	for i := range 2 {
		if res := a.callTool(i, "limited", nil); rpcErr(res) != nil {
			t.Fatalf("call %d: %v", i, res)
		}
	}
	res := a.callTool(3, "ＬＩＭＩＴＥＤ", nil)
	e := rpcErr(res)
	if fmt.Sprint(e["code"]) != "-32002" || e["message"] != "Rate limit exceeded" {
		t.Fatalf("third call: %v", res)
	}
	// Another agent has its own bucket, on the same guard.
	b := f.agent(t, "other-agent")
	if res := b.callTool(1, "limited", nil); rpcErr(res) != nil {
		t.Fatalf("other agent: %v", res)
	}
	ev := f.toolEvents(t)
	n := 0
	for _, e := range ev {
		if e["decision"] == "RATE_LIMITED" {
			n++
			if e["agent"] != "client:raw-agent" || e["tool"] != "limited" {
				t.Errorf("rate event %v", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d RATE_LIMITED events, want exactly 1", n)
	}
}

// failingStore is a rate store that is down.
type failingStore struct{}

func (failingStore) Take(ctx context.Context, key string, r ratelimit.Rate, now time.Time) (ratelimit.Result, error) {
	return ratelimit.Result{}, ratelimit.ErrUnavailable
}

func TestRateStoreDownFailsClosed(t *testing.T) {
	f := newFixture(t, basePolicy, &gatehouse.Options{Limits: &gatehouse.LimitOptions{RateStore: failingStore{}}})
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "limited", nil)
	e := rpcErr(res)
	if fmt.Sprint(e["code"]) != "-32603" || !strings.Contains(fmt.Sprint(e["data"]), "rate limiter is unavailable") || f.runs.Load() != 0 {
		t.Fatalf("%v", res)
	}
}

// brokenWriter fails every write once broken is set.
type brokenWriter struct{ broken atomic.Bool }

func (b *brokenWriter) Write(p []byte) (int, error) {
	if b.broken.Load() {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestAuditFailureDenies(t *testing.T) {
	bw := &brokenWriter{}
	w, err := audit.New(bw, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, basePolicy, &gatehouse.Options{Audit: w})
	c := dialRaw(t, f.ct, "2025-06-18")
	bw.broken.Store(true)
	res := c.callTool(1, "echo", nil)
	if e := rpcErr(res); fmt.Sprint(e["code"]) != "-32603" || f.runs.Load() != 0 {
		t.Fatalf("a call that cannot be audited ran: %v", res)
	}
}

func TestMonitorMode(t *testing.T) {
	src := strings.Replace(basePolicy, "spec:\n", "spec:\n  mode: monitor\n", 1)
	f := newFixture(t, src, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	if res := c.callTool(1, "unlisted", nil); rpcErr(res) != nil {
		t.Fatalf("monitor mode must forward a block: %v", res)
	}
	if res := c.callTool(2, "echo", map[string]any{"p": "~/.ssh/id_rsa"}); fmt.Sprint(rpcErr(res)["code"]) != "-32007" {
		t.Fatalf("protected paths stay enforced: %v", res)
	}
	ev := f.toolEvents(t)
	if ev[0]["decision"] != "ALLOW_MONITOR" || ev[0]["violation"] != true || ev[0]["policy_mode"] != "monitor" {
		t.Errorf("monitored event: %v", ev[0])
	}
}
