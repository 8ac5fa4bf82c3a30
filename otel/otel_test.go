package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	ghotel "github.com/gatehouse-dev/gatehouse/otel"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
)

func approve(context.Context, gatehouse.AskRequest) (gatehouse.Answer, error) {
	return gatehouse.Answer{Approved: true}, nil
}

// want is what one tools/call's span must say.
type want struct {
	tool, args      string
	decision, stage string
	errType         string // "" for a call that went through
	traceparent     bool
}

var calls = []want{
	{tool: "echo", decision: "ALLOW", stage: "policy", traceparent: true},
	{tool: "never", decision: "BLOCK", stage: "policy", errType: "-32001"},
	{tool: "deploy", decision: "ALLOW", stage: "answer", traceparent: true},
	{tool: "limited", decision: "ALLOW", stage: "policy"},
	{tool: "limited", decision: "ALLOW", stage: "policy"},
	{tool: "limited", decision: "RATE_LIMITED", stage: "rate", errType: "-32002", traceparent: true},
	{tool: "read", args: "~/.ssh/id_rsa", decision: "PROTECTED_PATH", stage: "policy", errType: "-32007"},
	{tool: "secret", decision: "ALLOW", stage: "policy", traceparent: true},
}

// TestSpansAndMetrics makes one call of each kind through a go-sdk client
// and checks: one server span per tools/call with the semconv and gatehouse
// attributes; the client's traceparent is the parent when sent; the metrics
// count exactly the calls made; every audit event of a call carries the
// span's trace and span ids, and the chain verifies.
func TestSpansAndMetrics(t *testing.T) {
	e := newEnv(t, gatehouse.AskerFunc(approve))
	for i, c := range calls {
		var args map[string]any
		if c.args != "" {
			args = map[string]any{"path": c.args}
		}
		tp := ""
		if c.traceparent {
			tp = fmt.Sprintf("00-%s-%s-01", clientTrace, clientSpan)
		}
		res, err := e.call(t, c.tool, args, tp)
		if (c.errType == "") != (err == nil && !res.IsError) {
			t.Fatalf("call %d (%s): %v %v", i, c.tool, res, err)
		}
	}
	spans := toolSpans(e.spans.Ended())
	if len(spans) != len(calls) {
		t.Fatalf("%d tools/call spans, want %d", len(spans), len(calls))
	}
	for i, c := range calls {
		checkSpan(t, spans[i], c)
	}
	checkMetrics(t, e.metrics(t))
	checkAudit(t, e.auditLog(), spans)
}

func toolSpans(all []sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range all {
		if attrOf(s, "mcp.method.name") == "tools/call" {
			out = append(out, s)
		}
	}
	return out
}

func attrOf(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

func checkSpan(t *testing.T, s sdktrace.ReadOnlySpan, c want) {
	t.Helper()
	got := map[string]string{}
	for _, k := range []string{"gen_ai.tool.name", "gatehouse.decision", "gatehouse.stage", "error.type", "gen_ai.operation.name"} {
		got[k] = attrOf(s, k)
	}
	exp := map[string]string{"gen_ai.tool.name": c.tool, "gatehouse.decision": c.decision, "gatehouse.stage": c.stage,
		"error.type": c.errType, "gen_ai.operation.name": "execute_tool"}
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		t.Errorf("span %q: attributes %v, want %v", s.Name(), got, exp)
	}
	if s.Name() != "tools/call "+c.tool || s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span name %q kind %v", s.Name(), s.SpanKind())
	}
	if (s.Status().Code == codes.Error) != (c.errType != "") {
		t.Errorf("%s: status %v", c.tool, s.Status())
	}
	parent := s.Parent()
	if c.traceparent {
		if !parent.IsRemote() || parent.TraceID().String() != clientTrace || parent.SpanID().String() != clientSpan || s.SpanContext().TraceID().String() != clientTrace {
			t.Errorf("%s: parent %v trace %v, want the client's traceparent", c.tool, parent, s.SpanContext().TraceID())
		}
	} else if parent.IsValid() || s.SpanContext().TraceID().String() == clientTrace {
		t.Errorf("%s: has parent %v without a traceparent", c.tool, parent)
	}
}

// sums returns the data points of a metric by one attribute's value.
func sums(t *testing.T, data metricdata.Aggregation, key string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			v, _ := p.Attributes.Value(attribute.Key(key))
			out[v.Emit()] += p.Value
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			v, _ := p.Attributes.Value(attribute.Key(key))
			out[v.Emit()] += int64(p.Count)
		}
	default:
		t.Fatalf("unexpected aggregation %T", data)
	}
	return out
}

func checkMetrics(t *testing.T, m map[string]metricdata.Aggregation) {
	t.Helper()
	decisions := sums(t, m["gatehouse.decisions"], "gatehouse.decision")
	wantDecisions := map[string]int64{}
	for _, c := range calls {
		wantDecisions[c.decision]++
	}
	wantDecisions["ALLOW"]++ // initialize
	tools := sums(t, m["gatehouse.decisions"], "gen_ai.tool.name")
	checks := []struct {
		name      string
		got, want string
	}{
		{"decisions by outcome", fmt.Sprint(decisions), fmt.Sprint(wantDecisions)},
		{"decisions by tool", fmt.Sprint(tools), fmt.Sprint(map[string]int64{"": 1, "echo": 1, "never": 1, "deploy": 1, "limited": 3, "read": 1, "secret": 1})},
		{"operation duration", fmt.Sprint(sums(t, m["mcp.server.operation.duration"], "mcp.method.name")["tools/call"]), fmt.Sprint(len(calls))},
		{"operation errors", fmt.Sprint(sums(t, m["mcp.server.operation.duration"], "error.type")), fmt.Sprint(map[string]int64{"": 6, "-32001": 1, "-32002": 1, "-32007": 1})},
		{"limit denials", fmt.Sprint(sums(t, m["gatehouse.limit.denials"], "gatehouse.limit.kind")), fmt.Sprint(map[string]int64{"rate": 1})},
		{"redactions", fmt.Sprint(sums(t, m["gatehouse.dlp.redactions"], "gatehouse.dlp.direction")), fmt.Sprint(map[string]int64{"downstream": 1})},
		{"asks", fmt.Sprint(sums(t, m["gatehouse.ask.duration"], "gatehouse.ask.answer")), fmt.Sprint(map[string]int64{"approved": 1})},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	if _, ok := m["gatehouse.audit.write.duration"]; !ok {
		t.Error("no audit write durations")
	}
}

// checkAudit: the log verifies, and each tools/call span has audit events
// with its own trace and span id (the decision, and the DLP event of the
// secret's result).
func checkAudit(t *testing.T, log []byte, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	bySpan := map[string][]audit.Verified{}
	sum, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{Each: func(v audit.Verified) { bySpan[v.SpanID] = append(bySpan[v.SpanID], v) }})
	if err != nil {
		t.Fatalf("the audit log does not verify: %v", err)
	}
	for _, s := range spans {
		evs := bySpan[s.SpanContext().SpanID().String()]
		if len(evs) == 0 {
			t.Errorf("%s: no audit event for span %s", s.Name(), s.SpanContext().SpanID())
		}
		for _, ev := range evs {
			if ev.TraceID != s.SpanContext().TraceID().String() {
				t.Errorf("%s: audit event seq %d has trace %s, span has %s", s.Name(), ev.Seq, ev.TraceID, s.SpanContext().TraceID())
			}
		}
	}
	if sum.Traced != sum.Events {
		t.Errorf("%d of %d audit events carry a trace id", sum.Traced, sum.Events)
	}
	if n := len(bySpan[spans[len(spans)-1].SpanContext().SpanID().String()]); n != 2 {
		t.Errorf("the secret's call has %d audit events, want its decision and its DLP event", n)
	}
}

// TestUnknownToolsBounded: tool names the server does not have come from
// the client; they never become metric series of their own (a flood of
// names would grow the meter's memory without bound), and a secret sent as
// a tool name is redacted in the span as in the audit log.
func TestUnknownToolsBounded(t *testing.T) {
	e := newEnv(t, nil)
	for i := range 40 {
		if _, err := e.call(t, fmt.Sprintf("probe_%d", i), nil, ""); err == nil {
			t.Fatalf("probe_%d was not refused", i)
		}
	}
	if _, err := e.call(t, "leak_"+fakeKey, nil, ""); err == nil {
		t.Fatal("the secret-named tool was not refused")
	}
	tools := sums(t, e.metrics(t)["gatehouse.decisions"], "gen_ai.tool.name")
	if fmt.Sprint(tools) != fmt.Sprint(map[string]int64{"": 1, "_OTHER": 41}) {
		t.Errorf("decisions by tool: %v", tools)
	}
	for _, s := range toolSpans(e.spans.Ended()) {
		if s.Name() != "tools/call" {
			t.Errorf("span named after an unknown tool: %q", s.Name())
		}
		for _, kv := range s.Attributes() {
			if bytes.Contains([]byte(kv.Value.Emit()), []byte(fakeKey)) || bytes.Contains(bytes.ToLower([]byte(kv.Value.Emit())), bytes.ToLower([]byte(fakeKey))) {
				t.Errorf("span attribute %s carries the secret: %s", kv.Key, kv.Value.Emit())
			}
		}
	}
}

// TestMalformedTraceparent: a traceparent that is not one starts a new
// trace (W3C Trace Context §4.3) and never denies the call.
func TestMalformedTraceparent(t *testing.T) {
	e := newEnv(t, nil)
	for _, tp := range []string{"garbage", "00-" + clientTrace + "-0000000000000000-01", "00-" + clientTrace + "-" + clientSpan + "-01-extra"} {
		if _, err := e.call(t, "echo", nil, tp); err != nil {
			t.Fatalf("%q: %v", tp, err)
		}
	}
	for _, s := range toolSpans(e.spans.Ended()) {
		if s.Parent().IsValid() || s.SpanContext().TraceID().String() == clientTrace {
			t.Errorf("a malformed traceparent became the parent: %v", s.Parent())
		}
	}
}

// TestSessionID: over streamable HTTP, where sessions have ids, the span of
// a tools/call carries mcp.session.id, the id the client was given.
func TestSessionID(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	obs, err := ghotel.New(&ghotel.Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.ParseWith([]byte(testPolicy), &policy.Options{Home: "/home/agent", WorkDir: "/srv"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gatehouse.New(p, &gatehouse.Options{Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-session", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	g.Install(s)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ended := spans.Ended()
	if cs.ID() == "" || len(toolSpans(ended)) != 1 {
		t.Fatalf("session id %q, %d tools/call spans", cs.ID(), len(toolSpans(ended)))
	}
	if got := attrOf(toolSpans(ended)[0], "mcp.session.id"); got != cs.ID() {
		t.Errorf("mcp.session.id %q, want %q", got, cs.ID())
	}
}
