package policy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

func call(tool string, args map[string]any) policy.Request {
	return policy.Request{Method: "tools/call", Tool: tool, Args: args}
}

// TestDesign2_MethodAndToolShareNormalization: the method that decides
// whether tool checks run is the normalized one, and a nil policy or a
// method that normalizes to nothing never allows (DESIGN §3 item 2).
func TestDesign2_MethodAndToolShareNormalization(t *testing.T) {
	p := parse(t, header+"spec:\n  allowed_methods: ['*']\n  allowed_tools: [read_file]\n")
	for _, m := range []string{"tools/call", "ｔｏｏｌｓ/ｃａｌｌ", "tools/call\u200b", "TOOLS/CALL", "\u202etools/call", " tools/call\t"} {
		d := p.Evaluate(call("delete_file", nil))
		d2 := p.Evaluate(policy.Request{Method: m, Tool: "delete_file"})
		if d2.Outcome != policy.Block || d2.Code != policy.CodeForbidden || d2.Method != "tools/call" {
			t.Errorf("method %q skipped tool checks: %+v", m, d2)
		}
		if d.Reason != d2.Reason {
			t.Errorf("method %q: reason %q differs from plain tools/call %q", m, d2.Reason, d.Reason)
		}
	}
	var none *policy.Policy
	for _, r := range []policy.Request{call("read_file", nil), {Method: "tools/list"}, {Method: ""}} {
		if d := none.Evaluate(r); d.Outcome != policy.Block || !d.Violation || d.Code == 0 {
			t.Errorf("nil policy, %+v: %+v", r, d)
		}
	}
	q := parse(t, header+"spec:\n  allowed_tools: [read_file]\n")
	for _, m := range []string{"", "\u200b", "tools/call/", "tools", "resources/read"} {
		if d := q.Evaluate(policy.Request{Method: m, Tool: "read_file"}); d.Outcome != policy.Block || d.Code != policy.CodeMethodNotAllowed {
			t.Errorf("method %q with the default list: %+v", m, d)
		}
	}
	if d := q.Evaluate(call("", nil)); d.Outcome != policy.Block || d.Reason != "Tool name is empty" {
		t.Errorf("empty tool: %+v", d)
	}
	if d := q.Evaluate(call("\u200b\u200d", nil)); d.Outcome != policy.Block {
		t.Errorf("invisible tool name: %+v", d)
	}
}

// TestDefaultMethods: the AIP §3.4.3 list plus server/discover,
// subscriptions/listen and notifications/cancelled; denied before allowed.
// TestMonitoredMethodStillChecksTools: monitor mode forwarding a denied
// tools/call method must not skip the tool checks.
func TestMonitoredMethodStillChecksTools(t *testing.T) {
	p := parse(t, header+"spec:\n  mode: monitor\n  denied_methods: [tools/call]\n  allowed_tools: [a]\n  protected_paths: [/etc]\n")
	if d := p.Evaluate(call("a", map[string]any{"p": "/etc/passwd"})); d.Outcome != policy.ProtectedPath {
		t.Errorf("protected path skipped: %+v", d)
	}
	if d := p.Evaluate(call("a", nil)); !d.Monitored() || d.Reason != "Method is in denied_methods" || d.Tool != "a" {
		t.Errorf("method violation lost: %+v", d)
	}
	if d := p.Evaluate(call("b", nil)); !d.Monitored() || d.Reason != "Tool not in allowed_tools list" {
		t.Errorf("tool violation: %+v", d)
	}
	if d := p.EvaluateMethod("ｔｏｏｌｓ/ｃａｌｌ"); !d.Monitored() || d.Method != "tools/call" {
		t.Errorf("EvaluateMethod: %+v", d)
	}
	var none *policy.Policy
	if d := none.EvaluateMethod("ping"); d.Outcome != policy.Block || d.Code != policy.CodeMethodNotAllowed {
		t.Errorf("nil policy EvaluateMethod: %+v", d)
	}
}

func TestDefaultMethods(t *testing.T) {
	p := parse(t, header+"spec:\n  denied_methods: [tools/list]\n")
	for _, m := range policy.DefaultAllowedMethods {
		want := policy.Allow
		if m == "tools/list" {
			want = policy.Block
		}
		if m == "tools/call" {
			continue
		}
		if d := p.Evaluate(policy.Request{Method: m}); d.Outcome != want {
			t.Errorf("%s: %s, want %s", m, d.Outcome, want)
		}
	}
	for _, m := range []string{"server/discover", "subscriptions/listen"} {
		if d := p.Evaluate(policy.Request{Method: m}); d.Outcome != policy.Allow {
			t.Errorf("%s not in the default list", m)
		}
	}
	for _, m := range []string{"resources/read", "resources/list", "prompts/get", "sampling/createMessage", "logging/setLevel"} {
		if d := p.Evaluate(policy.Request{Method: m}); d.Outcome != policy.Block || d.Code != policy.CodeMethodNotAllowed || d.Message != "Method not allowed" {
			t.Errorf("%s: %+v", m, d)
		}
	}
	// ('*' in denied_methods is refused at load: TestAIPNamesAreExactNotGlobs.)
	w := parse(t, header+"spec:\n  allowed_methods: ['*']\n  denied_methods: [ping]\n")
	if d := w.Evaluate(policy.Request{Method: "ping"}); d.Outcome != policy.Block || d.Reason != "Method is in denied_methods" {
		t.Errorf("denied must win over *: %+v", d)
	}
	if d := w.Evaluate(policy.Request{Method: "anything/else"}); d.Outcome != policy.Allow {
		t.Errorf("* must allow other methods: %+v", d)
	}
	e := parse(t, header+"spec:\n  allowed_methods: []\n")
	if d := e.Evaluate(policy.Request{Method: "initialize"}); d.Outcome != policy.Block {
		t.Errorf("an empty allowed_methods allows nothing, got %+v", d)
	}
}

// TestDesign5_MonitorMode: BLOCK is forwarded as ALLOW_MONITOR with the
// violation kept; protected paths and rate limits are enforced; ask asks
// (DESIGN §3 item 5, AIP §4.4).
func TestDesign5_MonitorMode(t *testing.T) {
	p := parse(t, header+`spec:
  mode: monitor
  allowed_tools: [read_file]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: rm
      action: block
    - tool: deploy
      action: ask
      allow_args:
        env: "^staging$"
    - tool: fetch
      rate_limit: 1/minute
      strict_args: true
      allow_args:
        url: "^https://"
`)
	policytest.Check(t, p, []policytest.Case{
		{Name: "unlisted", Tool: "delete_file", Want: "ALLOW_MONITOR"},
		{Name: "blocked rule", Tool: "rm", Want: "ALLOW_MONITOR"},
		{Name: "bad arg", Tool: "fetch", Args: map[string]any{"url": "http://x"}, Want: "ALLOW_MONITOR", FailedArg: "url"},
		{Name: "undeclared arg", Tool: "fetch", Args: map[string]any{"url": "https://x", "h": "y"}, Want: "ALLOW_MONITOR", FailedArg: "h"},
		{Name: "protected path enforced", Tool: "read_file", Args: map[string]any{"p": "~/.ssh/id_rsa"}, Want: "PROTECTED_PATH", Code: -32007},
		{Name: "ask asks", Tool: "deploy", Args: map[string]any{"env": "staging"}, Want: "ASK"},
		{Name: "ask with a bad arg still asks", Tool: "deploy", Args: map[string]any{"env": "prod"}, Want: "ASK", FailedArg: "env"},
		{Name: "denied method", Method: "resources/read", Want: "ALLOW_MONITOR"},
		{Name: "clean call", Tool: "read_file", Args: map[string]any{"p": "/tmp/x"}, Want: "ALLOW"},
	})
	d := p.Evaluate(call("rm", nil))
	if d.Code != 0 || d.Message != "" || !d.Violation || d.AuditDecision() != "ALLOW_MONITOR" || d.Reason == "" {
		t.Errorf("monitored block: %+v (audit %s)", d, d.AuditDecision())
	}
	ask := p.Evaluate(call("deploy", map[string]any{"env": "prod"}))
	if !ask.Violation {
		t.Errorf("ask with a bad arg lost its violation: %+v", ask)
	}
	rl := policy.RateLimitedDecision("tools/call", "fetch")
	if rl.Outcome != policy.RateLimited || rl.Code != -32002 || rl.Message != "Rate limit exceeded" || rl.AuditDecision() != "RATE_LIMITED" {
		t.Errorf("rate limited: %+v", rl)
	}
	if p.Mode() != policy.Monitor || p.Mode().String() != "monitor" {
		t.Errorf("mode %v", p.Mode())
	}
}

// TestDesign6_StrictArgs: strict_args without allow_args makes every
// argument undeclared; strict_args_default covers rules without their own
// setting and tools without rules; an allow rule counts as listed (DESIGN
// §3 item 6, AIP §5.2, vector auth-020).
func TestDesign6_StrictArgs(t *testing.T) {
	p := parse(t, header+`spec:
  allowed_tools: [listed]
  tool_rules:
    - tool: bare_strict
      strict_args: true
    - tool: declared
      strict_args: true
      allow_args:
        a: ".*"
    - tool: lenient
      allow_args:
        a: ".*"
    - tool: rule_only
`)
	policytest.Check(t, p, []policytest.Case{
		{Name: "strict, no allow_args, no args", Tool: "bare_strict", Want: "ALLOW"},
		{Name: "strict, no allow_args, one arg", Tool: "bare_strict", Args: map[string]any{"x": 1}, Want: "BLOCK", FailedArg: "x"},
		{Name: "strict, declared only", Tool: "declared", Args: map[string]any{"a": "1"}, Want: "ALLOW"},
		{Name: "strict, undeclared first by name", Tool: "declared", Args: map[string]any{"a": "1", "z": 1, "b": 2}, Want: "BLOCK", FailedArg: "b"},
		{Name: "lenient extra", Tool: "lenient", Args: map[string]any{"a": "1", "z": 1}, Want: "ALLOW"},
		{Name: "allow rule counts as listed", Tool: "rule_only", Args: map[string]any{"z": 1}, Want: "ALLOW"},
		{Name: "listed, no rule", Tool: "listed", Args: map[string]any{"z": 1}, Want: "ALLOW"},
	})
	s := parse(t, header+`spec:
  strict_args_default: true
  allowed_tools: [listed]
  tool_rules:
    - tool: opt_out
      strict_args: false
    - tool: inherits
      allow_args:
        a: ".*"
`)
	policytest.Check(t, s, []policytest.Case{
		{Name: "default covers listed tools without a rule", Tool: "listed", Args: map[string]any{"z": 1}, Want: "BLOCK", FailedArg: "z"},
		{Name: "default, no args", Tool: "listed", Want: "ALLOW"},
		{Name: "rule opts out", Tool: "opt_out", Args: map[string]any{"z": 1}, Want: "ALLOW"},
		{Name: "rule inherits", Tool: "inherits", Args: map[string]any{"a": "x", "z": 1}, Want: "BLOCK", FailedArg: "z"},
	})
	d := s.Evaluate(call("inherits", map[string]any{"a": "x", "secret-ish": 1}))
	if !strings.Contains(d.Reason, `"secret-ish"`) || !strings.Contains(d.Reason, "strict_args") {
		t.Errorf("strict reason %q should name the argument and the rule", d.Reason)
	}
}

// TestDesign7_ErrorsFollowSpec: codes and messages exactly per AIP §5, ask
// timeout -32005 (never -32004), and reasons that never carry a regex or an
// argument value (DESIGN §3 item 7).
func TestDesign7_ErrorsFollowSpec(t *testing.T) {
	p := parse(t, header+`spec:
  denied_methods: [resources/read]
  protected_paths: [/etc]
  tool_rules:
    - tool: fetch
      allow_args:
        url: "^https://internal\\.example/secret-path-[0-9]+$"
    - tool: ask_me
      action: ask
    - tool: never
      action: block
`)
	const value = "http://attacker.example/AKIAIOSFODNN7EXAMPLE"
	cases := []struct {
		r       policy.Request
		code    int
		message string
	}{
		{call("unlisted", nil), -32001, "Forbidden"},
		{call("never", nil), -32001, "Forbidden"},
		{call("fetch", map[string]any{"url": value}), -32001, "Forbidden"},
		{call("fetch", map[string]any{"url": 42}), -32001, "Forbidden"},
		{call("fetch", map[string]any{}), -32001, "Forbidden"},
		{call("fetch", map[string]any{"url": "cat /etc/passwd " + value}), -32007, "Access denied: protected path"},
		{policy.Request{Method: "resources/read"}, -32006, "Method not allowed"},
	}
	for _, c := range cases {
		d := p.Evaluate(c.r)
		if d.Code != c.code || d.Message != c.message {
			t.Errorf("%+v: %d %q, want %d %q", c.r, d.Code, d.Message, c.code, c.message)
		}
		for _, leak := range []string{"secret-path", "internal\\.example", "attacker", "AKIA", "/etc/passwd", "42"} {
			if strings.Contains(d.Reason, leak) {
				t.Errorf("reason %q leaks %q", d.Reason, leak)
			}
		}
	}
	d := p.Evaluate(call("fetch", map[string]any{"url": value}))
	if d.FailedRule != `^https://internal\.example/secret-path-[0-9]+$` || d.FailedArg != "url" {
		t.Errorf("the audit log's failed_rule/failed_arg: %q %q", d.FailedRule, d.FailedArg)
	}
	ask := p.Evaluate(call("ask_me", nil))
	if ask.Outcome != policy.Ask || ask.Code != 0 {
		t.Fatalf("ask: %+v", ask)
	}
	if d := ask.Denied(true); d.Code != -32005 || d.Message != "User approval timeout" || d.Outcome != policy.Block {
		t.Errorf("timeout: %+v", d)
	}
	if d := ask.Denied(false); d.Code != -32004 || d.Message != "User denied" || d.Outcome != policy.Block {
		t.Errorf("denied: %+v", d)
	}
	for o, s := range map[policy.Outcome]string{policy.Allow: "ALLOW", policy.Block: "BLOCK", policy.Ask: "ASK", policy.RateLimited: "RATE_LIMITED", policy.ProtectedPath: "PROTECTED_PATH", policy.Outcome(99): "BLOCK"} {
		if o.String() != s {
			t.Errorf("Outcome(%d).String() = %q, want %q", o, o.String(), s)
		}
	}
	if (policy.Decision{}).Outcome != policy.Block {
		t.Error("the zero Decision must deny")
	}
}

// TestStringConversion is STRING() of AIP §4.5, numbers kept verbatim.
func TestStringConversion(t *testing.T) {
	p := parse(t, header+`spec:
  tool_rules:
    - tool: t
      allow_args:
        v: "^(1\\.50|1e3|-0|12345678901234567890|true|false||\\[1,\"a\"\\]|\\{\"a\":\\[\\],\"b\":null\\}|<&>)$"
`)
	ok := []any{json.Number("1.50"), json.Number("1e3"), json.Number("-0"), json.Number("12345678901234567890"), true, false, nil, "",
		[]any{json.Number("1"), "a"}, map[string]any{"b": nil, "a": []any{}}, "<&>"}
	for _, v := range ok {
		if d := p.Evaluate(call("t", map[string]any{"v": v})); d.Outcome != policy.Allow {
			t.Errorf("STRING(%#v) did not match: %s", v, d.Reason)
		}
	}
	bad := []any{json.Number("1.5"), json.Number("1000"), "TRUE", []any{"a"}, map[string]any{"a": 1}}
	for _, v := range bad {
		if d := p.Evaluate(call("t", map[string]any{"v": v})); d.Outcome != policy.Block {
			t.Errorf("STRING(%#v) matched", v)
		}
	}
}

// TestEvaluateConcurrent: one policy, many goroutines, same answers (run with -race).
func TestEvaluateConcurrent(t *testing.T) {
	p := parse(t, header+`spec:
  allowed_tools: [read_file]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: fetch
      strict_args: true
      rate_limit: 5/s
      allow_args: {url: "^https://"}
`)
	reqs := []policy.Request{
		call("read_file", map[string]any{"path": "/tmp/x"}),
		call("read_file", map[string]any{"path": "~/.ssh/id_rsa"}),
		call("fetch", map[string]any{"url": "https://x"}),
		call("fetch", map[string]any{"url": "http://x"}),
		call("ＦＥＴＣＨ", map[string]any{"url": "https://x", "extra": 1}),
		call("nope", nil),
	}
	want := make([]policy.Decision, len(reqs))
	for i, r := range reqs {
		want[i] = p.Evaluate(r)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := (g + i) % len(reqs)
				if got := p.Evaluate(reqs[k]); got != want[k] {
					errs <- fmt.Sprintf("request %d: %+v, want %+v", k, got, want[k])
					return
				}
				p.RateLimit("fetch")
				p.DLP()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestAccessors(t *testing.T) {
	p := parse(t, `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: n, version: "1.2.0", owner: sec@example.com}
spec:
  allowed_tools: [a]
  tool_rules:
    - {tool: B, action: block}
    - {tool: c, action: ask, rate_limit: 3/hr, strict_args: true, allow_args: {z: ".", y: "."}}
  dlp:
    detect_encoding: true
    patterns: [{name: k, regex: "AKIA[0-9A-Z]{16}"}]
`)
	if p.Name() != "n" || p.Version() != "1.2.0" || p.Owner() != "sec@example.com" || p.Path() != "" {
		t.Errorf("metadata: %q %q %q %q", p.Name(), p.Version(), p.Owner(), p.Path())
	}
	r, ok := p.Rule("C")
	if !ok || r.Action != policy.ActionAsk || r.RateLimit != "3/hour" || !r.StrictArgs || fmt.Sprint(r.Args) != "[y z]" {
		t.Errorf("Rule(C) = %+v %v", r, ok)
	}
	if p.MayAllow("b") || !p.MayAllow("A") || !p.MayAllow("c") || p.MayAllow("zzz") {
		t.Error("MayAllow wrong")
	}
	d := p.DLP()
	if !d.Enabled || !d.DetectEncoding || d.FilterStderr || len(d.Patterns) != 1 || d.Patterns[0].Name != "k" {
		t.Errorf("DLP() = %+v", d)
	}
	d.Patterns[0].Name = "changed"
	if p.DLP().Patterns[0].Name != "k" {
		t.Error("DLP() exposes the policy's own slice")
	}
	if none := parse(t, header+"spec: {}\n"); none.DLP().Enabled {
		t.Error("no dlp block, but DLP enabled")
	}
}

func TestPathArgsValidate(t *testing.T) {
	for _, bad := range []policy.PathArgs{
		{Base: "relative/dir"}, {Args: []string{""}}, {Join: [][]string{{"dir"}}}, {Join: [][]string{{"dir", ""}}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	ok := policy.PathArgs{Base: "/srv/app", Args: []string{"path"}, Join: [][]string{{"dir", "name"}}}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
}
