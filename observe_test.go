package gatehouse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
)

// recorder is an Observer that keeps what it is told. Its Start replaces
// the span id, as an Observer that starts a span does.
type recorder struct {
	mu        sync.Mutex
	starts    []gatehouse.RequestStart
	decisions []gatehouse.DecisionEvent
	asks      []gatehouse.AskEvent
	reds      []gatehouse.RedactionEvent
	limits    []gatehouse.LimitEvent
	writes    []gatehouse.AuditWriteEvent
	ends      []gatehouse.RequestEnd
	ctxTrace  []string // the trace id each Decision's context carries
}

func (r *recorder) Start(ctx context.Context, s gatehouse.RequestStart) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, s)
	if s.Trace.Valid() {
		return gatehouse.ContextWithTrace(ctx, gatehouse.TraceContext{TraceID: s.Trace.TraceID, SpanID: [8]byte{0x5e, 0x70, 0, 0, 0x5e, 0x70, 0, 0}})
	}
	return ctx
}
func (r *recorder) Decision(ctx context.Context, d gatehouse.DecisionEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.decisions = append(r.decisions, d)
	t, _ := gatehouse.TraceFromContext(ctx)
	r.ctxTrace = append(r.ctxTrace, t.TraceIDString())
}
func (r *recorder) Ask(_ context.Context, a gatehouse.AskEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks = append(r.asks, a)
}
func (r *recorder) Redaction(_ context.Context, e gatehouse.RedactionEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reds = append(r.reds, e)
}
func (r *recorder) Limit(_ context.Context, l gatehouse.LimitEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limits = append(r.limits, l)
}
func (r *recorder) AuditWrite(_ context.Context, a gatehouse.AuditWriteEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, a)
}
func (r *recorder) End(_ context.Context, e gatehouse.RequestEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ends = append(r.ends, e)
}

var _ gatehouse.Observer = (*recorder)(nil)

const (
	testTrace  = "0af7651916cd43dd8448eb211c80319c"
	clientSpan = "b7ad6b7169203331"
)

func traced() map[string]any {
	return map[string]any{"_meta": map[string]any{"traceparent": "00-" + testTrace + "-" + clientSpan + "-01", "tracestate": "k=v"}}
}

// callTraced sends tools/call with a traceparent in _meta.
func (c *rawConn) callTraced(id any, name string, args map[string]any) map[string]any {
	c.t.Helper()
	p := traced()
	p["name"] = name
	if args != nil {
		p["arguments"] = args
	}
	return c.request(id, "tools/call", p)
}

// TestObserverSeesEveryDecision: one decision per request, with the
// deciding stage, and the asks, limits, redactions and audit writes
// behind it; the audit events carry the Observer's span of the request.
func TestObserverSeesEveryDecision(t *testing.T) {
	rec := &recorder{}
	f := newFixture(t, basePolicy, &gatehouse.Options{Observer: rec, Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(
		func(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
			return gatehouse.Answer{Approved: true}, nil
		})}})
	c := dialRaw(t, f.ct, "2025-06-18")
	calls := []struct {
		tool  string
		args  map[string]any
		want  string // outcome/stage/registered
		limit string
	}{
		{"echo", map[string]any{"x": 1}, "ALLOW/policy/true", ""},
		{"never", nil, "BLOCK/policy/true", ""},
		{"nope", nil, "BLOCK/policy/false", ""},
		{"echo", map[string]any{"p": "~/.ssh/id_rsa"}, "PROTECTED_PATH/policy/true", ""},
		{"deploy", map[string]any{"env": "prod"}, "ALLOW/answer/true", ""},
		{"limited", nil, "ALLOW/policy/true", ""},
		{"limited", nil, "ALLOW/policy/true", ""},
		{"limited", nil, "RATE_LIMITED/rate/true", "rate"},
		{"echo", map[string]any{"k": fakeKey}, "ALLOW/policy/true", ""},
	}
	for i, tc := range calls {
		c.callTraced(i+1, tc.tool, tc.args)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got []string
	for _, d := range rec.decisions {
		if d.Method == "tools/call" {
			got = append(got, fmt.Sprintf("%s/%s/%v", d.Outcome, d.Stage, d.Registered))
		}
	}
	var want []string
	for _, tc := range calls {
		want = append(want, tc.want)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("decisions\n got %v\nwant %v", got, want)
	}
	for i, d := range rec.decisions {
		if d.Method == "tools/call" && (rec.ctxTrace[i] != testTrace || d.Agent != "client:raw-agent" || d.Latency <= 0) {
			t.Errorf("decision %d: %+v trace %q", i, d, rec.ctxTrace[i])
		}
	}
	if len(rec.asks) != 1 || rec.asks[0].Channel != "asker" || rec.asks[0].Answer != "approved" || rec.asks[0].Tool != "deploy" {
		t.Errorf("asks %+v", rec.asks)
	}
	if len(rec.limits) != 1 || rec.limits[0].Kind != "rate" || rec.limits[0].Tool != "limited" || rec.limits[0].Code != -32002 {
		t.Errorf("limits %+v", rec.limits)
	}
	dirs := map[string]int{}
	for _, r := range rec.reds {
		if r.Rule != "AWS Key" || r.Count != 1 || r.Tool != "echo" {
			t.Errorf("redaction %+v", r)
		}
		dirs[r.Direction]++
	}
	if dirs[gatehouse.RedactDownstream] != 1 || dirs[gatehouse.RedactUpstream] != 1 {
		t.Errorf("redactions by direction %v, want one of each (result, audited args)", dirs)
	}
	ev := f.events(t)
	if len(rec.writes) != len(ev) {
		t.Errorf("%d audit writes observed, %d events in the log", len(rec.writes), len(ev))
	}
	tools := 0
	for _, e := range ev {
		if e["method"] != "tools/call" {
			continue
		}
		tools++
		if e["trace_id"] != testTrace || e["span_id"] != "5e7000005e700000" {
			t.Errorf("audit event without the request's trace and server span: %v", e)
		}
	}
	if tools < len(calls) {
		t.Errorf("%d tools/call events, want at least %d", tools, len(calls))
	}
	ends := map[int]int{}
	for _, e := range rec.ends {
		ends[e.Code]++
	}
	if len(rec.ends) != len(rec.starts) || ends[-32001] != 2 || ends[-32002] != 1 || ends[-32007] != 1 {
		t.Errorf("%d starts, ends by code %v", len(rec.starts), ends)
	}
}

// TestTraceparentWithoutObserver: with no Observer the audit events still
// carry the client's trace and span, and a malformed traceparent is
// ignored (a new trace, W3C §4.3), never an error.
func TestTraceparentWithoutObserver(t *testing.T) {
	f := newFixture(t, basePolicy, nil)
	c := dialRaw(t, f.ct, "2025-06-18")
	c.callTraced(1, "echo", nil)
	bad := map[string]any{"name": "echo", "_meta": map[string]any{"traceparent": "00-" + testTrace + "-0000000000000000-01"}}
	if res := c.request(2, "tools/call", bad); rpcErr(res) != nil {
		t.Fatalf("a malformed traceparent denied the call: %v", res)
	}
	ev := f.toolEvents(t)
	if len(ev) != 2 {
		t.Fatalf("%d events", len(ev))
	}
	if ev[0]["trace_id"] != testTrace || ev[0]["span_id"] != clientSpan {
		t.Errorf("event without the client's trace: %v", ev[0])
	}
	if _, ok := ev[1]["trace_id"]; ok {
		t.Errorf("a malformed traceparent reached the log: %v", ev[1])
	}
}

// TestNilWriterIsNoAudit: a nil *audit.Writer in the Audit interface means
// no audit log, as it did when the field was a pointer (not a panic).
func TestNilWriterIsNoAudit(t *testing.T) {
	var w *audit.Writer
	g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Audit: w})
	c := dialRaw(t, serve(t, g, func(s *mcp.Server) { textTool(s, "echo", func(map[string]any) string { return "ok" }, nil) }), "2025-06-18")
	if res := c.callTool(1, "echo", nil); rpcErr(res) != nil || resultText(res) != "ok" {
		t.Fatalf("%v", res)
	}
}

// TestAuditSinkFailureDenies: any Sink's failure denies, as the Writer's
// does, and the Observer sees the failed write.
func TestAuditSinkFailureDenies(t *testing.T) {
	rec := &recorder{}
	down := errors.New("sink down")
	sink := sinkFunc(func(_ context.Context, e *audit.Event) error {
		if e.Method == "tools/call" {
			return down
		}
		return nil
	})
	f := newFixture(t, basePolicy, &gatehouse.Options{Audit: sink, Observer: rec})
	c := dialRaw(t, f.ct, "2025-06-18")
	res := c.callTool(1, "echo", nil)
	if e := rpcErr(res); e == nil || fmt.Sprint(e["code"]) != "-32603" || f.runs.Load() != 0 {
		t.Fatalf("want -32603 and no run: %v", res)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	failed := 0
	for _, w := range rec.writes {
		if errors.Is(w.Err, down) {
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("no failed audit write observed: %+v", rec.writes)
	}
}

type sinkFunc func(context.Context, *audit.Event) error

func (f sinkFunc) Write(ctx context.Context, e *audit.Event) error { return f(ctx, e) }

// panicky panics in one method.
type panicky struct {
	gatehouse.NopObserver
	in string
}

func (p panicky) Start(ctx context.Context, _ gatehouse.RequestStart) context.Context {
	if p.in == "Start" {
		panic("observer bug")
	}
	return ctx
}
func (p panicky) Decision(context.Context, gatehouse.DecisionEvent) {
	if p.in == "Decision" {
		panic("observer bug")
	}
}
func (p panicky) End(context.Context, gatehouse.RequestEnd) {
	if p.in == "End" {
		panic("observer bug")
	}
}

// TestObserverPanics: a panicking Observer never takes the server down; a
// panic while deciding denies (fail closed), one told of a call that has
// committed (audited, charged: final) or in End leaves the answer.
func TestObserverPanics(t *testing.T) {
	for _, tc := range []struct{ in, tool, code string }{{"Start", "echo", "-32603"}, {"Decision", "never", "-32603"}, {"Decision", "echo", ""}, {"End", "echo", ""}} {
		t.Run(tc.in+"/"+tc.tool, func(t *testing.T) {
			f := newFixture(t, basePolicy, &gatehouse.Options{Observer: panicky{in: tc.in}})
			c := dialRaw(t, f.ct, newProtocol) // no handshake: initialize would be denied too
			for i := range 2 {                 // the server is still up for a second call
				res := c.callTool(i+1, tc.tool, nil)
				if got := fmt.Sprint(rpcErr(res)["code"]); (tc.code == "" && rpcErr(res) != nil) || (tc.code != "" && got != tc.code) {
					t.Fatalf("call %d: %v, want code %q", i, res, tc.code)
				}
			}
			if tc.code != "" && f.runs.Load() != 0 {
				t.Fatalf("the tool ran %d times", f.runs.Load())
			}
		})
	}
}

// TestObserverElicitation: AddTool's ask through elicitation is observed
// as an ask on the elicitation channel, and the call's final decision is
// the one the user's answer made.
func TestObserverElicitation(t *testing.T) {
	for _, proto := range []string{"2025-06-18", newProtocol} {
		for _, answer := range []string{"accept", "decline"} {
			t.Run(proto+"/"+answer, func(t *testing.T) {
				rec := &recorder{}
				g := mustGuard(t, mustPolicy(t, basePolicy), &gatehouse.Options{Observer: rec})
				cs := elicitedDeploy(t, g, proto, func() *mcp.ElicitResult {
					if answer == "accept" {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
					}
					return &mcp.ElicitResult{Action: "decline"}
				})
				cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "staging"}})
				rec.mu.Lock()
				defer rec.mu.Unlock()
				var got []string
				for _, d := range rec.decisions {
					if d.Method == "tools/call" {
						got = append(got, d.Outcome+"/"+d.Stage)
					}
				}
				final, ans := "ALLOW/answer", "approved"
				if answer == "decline" {
					final, ans = "BLOCK/answer", "denied"
				}
				if len(got) == 0 || got[len(got)-1] != final {
					t.Errorf("tools/call decisions %v, want the last %s", got, final)
				}
				if len(rec.asks) != 1 || rec.asks[0].Channel != "elicitation" || rec.asks[0].Answer != ans || rec.asks[0].Duration < 0 {
					t.Errorf("asks %+v", rec.asks)
				}
			})
		}
	}
}

// elicitedDeploy serves g's "deploy" tool through gatehouse.AddTool (which
// asks by elicitation) and connects a client at proto whose elicitation
// handler answers with answer().
func elicitedDeploy(t *testing.T, g *gatehouse.Guard, proto string, answer func() *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	gatehouse.AddTool(s, g, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
	})
	g.Install(s)
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return answer(), nil },
	}, proto)
	return cs
}
