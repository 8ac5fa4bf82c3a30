package gatehouse_test

// One test per fault of the root-pipeline issue; each failed on the code
// before the pipeline (8dc8878).

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

const askWipePolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [read_file, echo]
  tool_rules:
    - tool: wipe
      action: ask
`

func countingTool(s *mcp.Server, name string, runs *atomic.Int64) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + req.Params.Name}}}, nil
	})
}

// Fault 1: server A's AddTool("wipe") must not make server B's plain wipe
// run an ask tool unasked; nor another spelling on the same server.
func TestAskNotSkippedAcrossServers(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "wipe"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	})
	var runs atomic.Int64
	b := dialRaw(t, serve(t, g, func(s *mcp.Server) { countingTool(s, "wipe", &runs) }), "2025-06-18")
	e := rpcErr(b.callTool(1, "wipe", map[string]any{}))
	if fmt.Sprint(e["code"]) != "-32004" || runs.Load() != 0 {
		t.Fatalf("server B's plain wipe: %v, ran %d times", e, runs.Load())
	}
	// A near miss (it passed before the fix too): another AddTool tool on
	// the same server does not make the plain tool ask through elicitation.
	// The issue's own spelling, AddTool "Wipe" beside a plain "wipe", is
	// TestRedteamAskSameServerOtherSpelling (and at Install a collision).
	var runs2 atomic.Int64
	c := dialRaw(t, serve(t, g, func(s *mcp.Server) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: "Wipe_Now"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		countingTool(s, "wipe", &runs2)
	}), "2025-06-18")
	if e := rpcErr(c.callTool(1, "wipe", map[string]any{})); fmt.Sprint(e["code"]) != "-32004" || runs2.Load() != 0 {
		t.Fatalf("plain wipe next to an AddTool tool: %v, ran %d times", e, runs2.Load())
	}
}

// Fault 1 and 2: tools whose names normalize to the same name are refused
// at Install, and when added later every call to them is denied.
func TestCollidingToolNames(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, askWipePolicy), nil)
	var runs atomic.Int64
	func() {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmt.Sprint(r), `"READ_FILE"`) || !strings.Contains(fmt.Sprint(r), `"read_file"`) {
				t.Fatalf("Install with colliding tools: recovered %v", r)
			}
		}()
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		for _, n := range []string{"read_file", "READ_FILE", "Read_File"} {
			countingTool(s, n, &runs)
		}
		g.Install(s)
	}()

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
	for i, name := range []string{"READ_FILE", "read_file", "Read_File"} {
		res := c.callTool(i, name, map[string]any{})
		if e := rpcErr(res); e == nil {
			t.Errorf("%s ran: %v", name, res)
		}
	}
	if runs.Load() != 0 {
		t.Fatalf("colliding tools ran %d times", runs.Load())
	}
}

// Fault 3 and 4: with no DLP option, the built-in pack redacts results and
// the audited arguments, also under a policy with one unrelated pattern.
func TestBuiltinDLPByDefault(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo]
  dlp:
    patterns:
      - {name: internal-id, regex: "INT-[0-9]{8}"}
`
	pat := "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyz"
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7Vb0Yq1nX2m\n-----END RSA PRIVATE KEY-----"
	secrets := []string{pat, fakeKey, "MIIEpAIBAAKCAQEA7Vb0Yq1nX2m"}
	for _, off := range []bool{false, true} {
		o := &gatehouse.Options{}
		if off {
			o.DLP = &gatehouse.DLPOptions{Off: true}
		}
		f := newFixture(t, src, o)
		res := dialRaw(t, f.ct, "2025-06-18").callTool(1, "echo", map[string]any{"text": pat + " " + fakeKey + "\n" + pem})
		raw, _ := json.Marshal(res)
		for _, s := range secrets {
			if got := strings.Contains(string(raw), s); got != off {
				t.Errorf("DLP off=%v: secret %.8s… in the result: %v", off, s, got)
			}
			if got := strings.Contains(f.log.String(), s); got != off {
				t.Errorf("DLP off=%v: secret %.8s… in the audit log: %v", off, s, got)
			}
		}
	}
}

// Fault 5: a denied call with more than 1 MiB of arguments is still
// recorded, its arguments replaced by their size and hash.
func TestOversizedDecisionIsAudited(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	big := strings.Repeat("x", 1<<20+10)
	res := dialRaw(t, f.ct, "2025-06-18").callTool(1, "never", map[string]any{"blob": big})
	if fmt.Sprint(rpcErr(res)["code"]) != "-32001" {
		t.Fatal(res)
	}
	ev := f.toolEvents(t)
	if len(ev) != 1 || ev[0]["decision"] != "BLOCK" {
		t.Fatalf("events %v", ev)
	}
	om, _ := ev[0]["args"].(map[string]any)["_gatehouse_omitted"].(map[string]any)
	if n, _ := om["bytes"].(float64); om == nil || int(n) != len(big)+len(`{"blob":""}`) || len(fmt.Sprint(om["sha256"])) != 64 {
		t.Fatalf("args %v", ev[0]["args"])
	}
}

// Fault 6: an audit failure on a method other than tools/call is logged.
func TestAuditFailureLoggedOnMethodPath(t *testing.T) {
	bw := &brokenWriter{}
	w, err := audit.New(bw, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Audit: w, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	c := dialRaw(t, serve(t, g, nil), "2025-06-18")
	bw.broken.Store(true)
	res := c.request(1, "tools/list", map[string]any{})
	if fmt.Sprint(rpcErr(res)["code"]) != "-32603" {
		t.Fatalf("tools/list with the audit log down: %v", res)
	}
	if !strings.Contains(logs.String(), "audit write failed") || !strings.Contains(logs.String(), "tools/list") {
		t.Fatalf("not logged: %q", logs.String())
	}
}

// Fault 7: a handler that never returns is abandoned after HandlerTimeout,
// audited; a result over MaxResultBytes is withheld before redaction.
func TestHandlerBounds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	// Long enough that building the 2 MiB result never times out under
	// -race on a busy machine; the blocked handler waits it out once.
	f := newFixture(t, basePolicy, &gatehouse.Options{HandlerTimeout: time.Second, MaxResultBytes: 1 << 20})
	big := fakeKey + strings.Repeat("y", 2<<20)
	ct := serve(t, f.g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-release // ignores ctx
			return &mcp.CallToolResult{}, nil
		})
		s.AddTool(&mcp.Tool{Name: "list_me", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	e := rpcErr(c.callTool(1, "echo", map[string]any{}))
	if fmt.Sprint(e["code"]) != "-32603" || !strings.Contains(fmt.Sprint(e["data"]), "HandlerTimeout") {
		t.Fatalf("blocked handler: %v", e)
	}
	res := c.callTool(2, "list_me", map[string]any{})
	e = rpcErr(res)
	if fmt.Sprint(e["code"]) != "-32603" || !strings.Contains(fmt.Sprint(e["data"]), "MaxResultBytes") || strings.Contains(fmt.Sprint(res), fakeKey) {
		t.Fatalf("large result: %.300v", res)
	}
	reasons := ""
	for _, ev := range f.toolEvents(t) {
		reasons += fmt.Sprint(ev["metadata"])
	}
	if !strings.Contains(reasons, "HandlerTimeout") || !strings.Contains(reasons, "MaxResultBytes") {
		t.Fatalf("not audited: %s", reasons)
	}
}

// Fault 8: a call refused when its step commits (a loop found while a
// human was asked) is not charged; and an ask that could outlive the step
// reservation is refused at New.
func TestRefusedAtCommitNotCharged(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [echo]
  tool_rules:
    - tool: deploy
      action: ask
`
	cg, err := ratelimit.NewGuard(&ratelimit.GuardOptions{MaxRepeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, release := make(chan struct{}), make(chan struct{})
	var n atomic.Int64
	asker := gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		if n.Add(1) == 1 {
			close(first)
			<-release // the human takes a while on the first call
		}
		return gatehouse.Answer{Approved: true}, nil
	})
	f := newFixture(t, src, &gatehouse.Options{Limits: &gatehouse.LimitOptions{Conversations: cg, Budget: b}, Ask: &gatehouse.AskOptions{Asker: asker}})
	call := func(c *rawConn, id, step int, args map[string]any) map[string]any {
		return c.request(id, "tools/call", map[string]any{"name": "deploy", "arguments": args,
			"_meta": map[string]any{"conversation_id": "c1", "step_number": step}})
	}
	a, bConn := f.agent(t, "same"), f.agent(t, "same")
	var slow map[string]any
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); slow = call(a, 1, 1, map[string]any{"env": "x"}) }()
	<-first
	if res := call(bConn, 2, 2, map[string]any{"env": "x"}); rpcErr(res) != nil {
		t.Fatalf("second step: %v", res)
	}
	close(release)
	wg.Wait()
	if e := rpcErr(slow); e == nil || !strings.Contains(fmt.Sprint(e["data"]), "LOOP") {
		t.Fatalf("the first call should be refused as a repeat at commit: %v", slow)
	}
	// One unit was spent (step 2); the refused step 1 was not charged, so
	// one more call fits in the budget of 2.
	if res := call(bConn, 3, 3, map[string]any{"env": "y"}); rpcErr(res) != nil {
		t.Fatalf("third call refused: the refused call was charged: %v", res)
	}

	_, err = gatehouse.New(mustPolicy(t, src), &gatehouse.Options{Limits: &gatehouse.LimitOptions{Conversations: cg}, Ask: &gatehouse.AskOptions{Asker: asker, Timeout: 2 * time.Minute}})
	if err == nil || !strings.Contains(err.Error(), "Options.Ask.Timeout") || !strings.Contains(err.Error(), "Options.Limits.Conversations") {
		t.Fatalf("an ask timeout past the reservation lifetime: %v", err)
	}
}

// New names both fields of an incoherent combination.
func TestNewRejectsIncoherentOptions(t *testing.T) {
	p := mustPolicy(t, basePolicy)
	for name, tc := range map[string]struct {
		o    gatehouse.Options
		want []string
	}{
		"usage without budget": {gatehouse.Options{Limits: &gatehouse.LimitOptions{Usage: func(gatehouse.Call) ratelimit.Usage { return ratelimit.Usage{} }}}, []string{"Limits.Usage", "Limits.Budget"}},
		"ask without asker":    {gatehouse.Options{Ask: &gatehouse.AskOptions{}}, []string{"Options.Ask.Asker"}},
		"approval w/o server":  {gatehouse.Options{Approval: &gatehouse.ApprovalOptions{ForUnauthenticated: true}}, []string{"Approval.Server"}},
		"trust without store":  {gatehouse.Options{Trust: &gatehouse.TrustOptions{}}, []string{"Trust.Store"}},
		"dlp off and scanner":  {gatehouse.Options{DLP: &gatehouse.DLPOptions{Off: true, NoBuiltin: true}}, []string{"DLP.Off", "DLP.NoBuiltin"}},
		"short elicit key":     {gatehouse.Options{Elicitation: &gatehouse.ElicitOptions{Key: make([]byte, 8)}}, []string{"Elicitation.Key"}},
		"negative timeout":     {gatehouse.Options{HandlerTimeout: -1}, []string{"HandlerTimeout"}},
	} {
		_, err := gatehouse.New(p, &tc.o)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v does not name %s", name, err, w)
			}
		}
	}
}

// Load beyond the in-flight caps is refused at once with -32002 naming the
// cap (it was "unavailable" after a wait); a handler abandoned after
// HandlerTimeout keeps its slot until it returns, so abandoned handlers are
// bounded too.
func TestInFlightCapRefusesAtOnce(t *testing.T) {
	release := make(chan struct{})
	f := newFixture(t, basePolicy, &gatehouse.Options{HandlerTimeout: 30 * time.Millisecond,
		Limits: &gatehouse.LimitOptions{InFlight: &ratelimit.InFlightOptions{PerAgent: 1}}})
	ct := serve(t, f.g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-release
			return &mcp.CallToolResult{}, nil
		})
	})
	c := dialRaw(t, ct, "2025-06-18")
	if e := rpcErr(c.callTool(1, "echo", map[string]any{})); fmt.Sprint(e["code"]) != "-32603" {
		t.Fatalf("first call should time out: %v", e)
	}
	e := rpcErr(c.callTool(2, "echo", map[string]any{}))
	if fmt.Sprint(e["code"]) != "-32002" || !strings.Contains(fmt.Sprint(e["data"]), "in flight") {
		t.Fatalf("a second call while the abandoned handler runs: %v", e)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		res := c.callTool(3, "echo", map[string]any{})
		if rpcErr(res) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was not given back after the handler returned: %v", res)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Issue 14 wiring: completion/complete values are path-checked, and a
// tool's declared path arguments are read as the tool joins them.
func TestCompletionAndDeclaredPaths(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{PathArgs: map[string]policy.PathArgs{
		"echo": {Base: "/home", Join: [][]string{{"dir", "name"}}},
	}})
	var runs atomic.Int64
	ct := featureServerWith(t, g, func(s *mcp.Server) { countingTool(s, "echo", &runs) })
	c := dialRaw(t, ct, "2025-06-18")
	res := c.request(1, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "p"},
		"argument": map[string]any{"name": "file", "value": "~/.ssh/"}})
	if fmt.Sprint(rpcErr(res)["code"]) != "-32007" {
		t.Fatalf("completion of ~/.ssh/: %v", res)
	}
	res = c.callTool(2, "echo", map[string]any{"dir": "agent/.ssh", "name": "id_rsa"})
	if fmt.Sprint(rpcErr(res)["code"]) != "-32007" || runs.Load() != 0 {
		t.Fatalf("declared dir+name under a protected path: %v", res)
	}
	if _, err := gatehouse.New(mustPolicy(t, basePolicy), &gatehouse.Options{PathArgs: map[string]policy.PathArgs{"echo": {Base: "relative"}}}); err == nil {
		t.Fatal("a relative Base was accepted")
	}
}
