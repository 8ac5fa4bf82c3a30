package otel

import (
	"context"
	"strconv"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/gatehouse-dev/gatehouse"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/gatehouse-dev/gatehouse/otel"

// Attribute keys of gatehouse's own (semantic-convention keys come from
// the semconv package).
const (
	KeyDecision     = attribute.Key("gatehouse.decision")      // ALLOW, BLOCK, ASK, RATE_LIMITED, PROTECTED_PATH, ALLOW_MONITOR
	KeyStage        = attribute.Key("gatehouse.stage")         // the pipeline stage that decided
	KeyRule         = attribute.Key("gatehouse.rule")          // the policy rule that decided, if any
	KeyAskChannel   = attribute.Key("gatehouse.ask.channel")   // asker, elicitation, passkey
	KeyAskAnswer    = attribute.Key("gatehouse.ask.answer")    // approved, denied, timeout
	KeyDLPRule      = attribute.Key("gatehouse.dlp.rule")      // the DLP rule's name
	KeyDLPDirection = attribute.Key("gatehouse.dlp.direction") // upstream, downstream
	KeyLimitKind    = attribute.Key("gatehouse.limit.kind")    // inflight, rate, policy, conversation, budget, commit
)

// otherTool stands for a tool name the server has no tool for, in metrics
// (the OpenTelemetry convention for values outside a known set): such
// names come from the client, and one metric series each would let a
// client grow the meter's memory without bound.
const otherTool = "_OTHER"

// maxToolAttr bounds a tool name written to a span.
const maxToolAttr = 256

// Options configure an Observer. A nil *Options uses the global providers.
type Options struct {
	// TracerProvider starts the spans; nil: otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the instruments; nil: otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
}

// Observer is a gatehouse.Observer that records OpenTelemetry spans and
// metrics. It is safe for concurrent use.
type Observer struct {
	tracer trace.Tracer
	m      instruments
}

var _ gatehouse.Observer = (*Observer)(nil)

// New returns an Observer for the providers of o.
func New(o *Options) (*Observer, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.TracerProvider == nil {
		opts.TracerProvider = otelapi.GetTracerProvider()
	}
	if opts.MeterProvider == nil {
		opts.MeterProvider = otelapi.GetMeterProvider()
	}
	m, err := newInstruments(opts.MeterProvider.Meter(ScopeName))
	if err != nil {
		return nil, err
	}
	return &Observer{tracer: opts.TracerProvider.Tracer(ScopeName), m: m}, nil
}

// request is what one request's span and metrics need across the calls.
type request struct {
	span   trace.Span
	method string
	tool   string // for metrics: the tool, or otherTool
}

type requestKey struct{}

func state(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// Start starts the request's span, a child of the client's traceparent
// (params._meta, SEP-414) when there is one, else of the span in ctx. A
// span already in ctx (an HTTP server's) is linked when the client's
// traceparent becomes the parent instead.
func (o *Observer) Start(ctx context.Context, r gatehouse.RequestStart) context.Context {
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)}
	if sc, ok := remote(r.Trace); ok {
		if local := trace.SpanContextFromContext(ctx); local.IsValid() && !local.Equal(sc) {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: local}))
		}
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	attrs := []attribute.KeyValue{semconv.McpMethodNameKey.String(r.Method)}
	if r.SessionID != "" {
		attrs = append(attrs, semconv.McpSessionID(r.SessionID))
	}
	if r.Method == "tools/call" {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
	}
	opts = append(opts, trace.WithAttributes(attrs...))
	ctx, span := o.tracer.Start(ctx, r.Method, opts...)
	ctx = context.WithValue(ctx, requestKey{}, &request{span: span, method: r.Method})
	if sc := span.SpanContext(); sc.IsValid() {
		ctx = gatehouse.ContextWithTrace(ctx, gatehouse.TraceContext{
			TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String(), Flags: byte(sc.TraceFlags()), State: sc.TraceState().String()})
	}
	return ctx
}

// remote is t as a remote span context.
func remote(t gatehouse.TraceContext) (trace.SpanContext, bool) {
	if !t.Valid() {
		return trace.SpanContext{}, false
	}
	tid, err1 := trace.TraceIDFromHex(t.TraceID)
	sid, err2 := trace.SpanIDFromHex(t.SpanID)
	if err1 != nil || err2 != nil {
		return trace.SpanContext{}, false
	}
	ts, err := trace.ParseTraceState(t.State)
	if err != nil {
		ts = trace.TraceState{} // a malformed tracestate is dropped, the parent kept (W3C §3.3.1)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(t.Flags), TraceState: ts, Remote: true}), true
}

// Decision names the span after the tool, sets the decision attributes
// and counts the decision.
func (o *Observer) Decision(ctx context.Context, d gatehouse.DecisionEvent) {
	r := state(ctx)
	attrs := []attribute.KeyValue{KeyDecision.String(d.Outcome), KeyStage.String(d.Stage)}
	if d.Rule != "" {
		attrs = append(attrs, KeyRule.String(d.Rule))
	}
	metricTool := ""
	if d.Tool != "" {
		attrs = append(attrs, semconv.GenAIToolName(clip(d.Tool)))
		metricTool = otherTool
		if d.Registered {
			metricTool = d.Tool
		}
	}
	if r != nil {
		r.tool = metricTool
		r.span.SetAttributes(attrs...)
		if d.Registered {
			r.span.SetName(d.Method + " " + d.Tool) // semconv: {mcp.method.name} {target}
		}
	}
	m := []attribute.KeyValue{KeyDecision.String(d.Outcome), semconv.McpMethodNameKey.String(d.Method)}
	if metricTool != "" {
		m = append(m, semconv.GenAIToolName(metricTool))
	}
	o.m.decisions.Add(ctx, 1, metric.WithAttributes(m...))
}

// Ask records the wait for a human as a span event and a histogram.
func (o *Observer) Ask(ctx context.Context, a gatehouse.AskEvent) {
	attrs := []attribute.KeyValue{KeyAskChannel.String(a.Channel), KeyAskAnswer.String(a.Answer)}
	if r := state(ctx); r != nil {
		r.span.AddEvent("gatehouse.ask", trace.WithAttributes(attrs...))
	}
	o.m.ask.Record(ctx, a.Duration.Seconds(), metric.WithAttributes(attrs...))
}

// Redaction counts redacted matches by rule and direction.
func (o *Observer) Redaction(ctx context.Context, e gatehouse.RedactionEvent) {
	attrs := []attribute.KeyValue{KeyDLPRule.String(e.Rule), KeyDLPDirection.String(e.Direction)}
	if r := state(ctx); r != nil {
		r.span.AddEvent("gatehouse.dlp.redaction", trace.WithAttributes(append(attrs, attribute.Int("gatehouse.dlp.count", e.Count))...))
	}
	o.m.redactions.Add(ctx, int64(e.Count), metric.WithAttributes(attrs...))
}

// Limit counts a call refused by a limit.
func (o *Observer) Limit(ctx context.Context, l gatehouse.LimitEvent) {
	attrs := []attribute.KeyValue{KeyLimitKind.String(l.Kind)}
	if r := state(ctx); r != nil && r.tool != "" {
		attrs = append(attrs, semconv.GenAIToolName(r.tool))
	}
	o.m.limits.Add(ctx, 1, metric.WithAttributes(attrs...))
}

// AuditWrite records the write's latency; a failure is also a span event.
func (o *Observer) AuditWrite(ctx context.Context, a gatehouse.AuditWriteEvent) {
	if a.Err == nil {
		o.m.audit.Record(ctx, a.Latency.Seconds())
		return
	}
	et := semconv.ErrorTypeKey.String("audit_write_failed")
	if r := state(ctx); r != nil {
		r.span.AddEvent("gatehouse.audit.write_failed", trace.WithAttributes(et))
	}
	o.m.audit.Record(ctx, a.Latency.Seconds(), metric.WithAttributes(et))
}

// End sets error.type and the status, records mcp.server.operation.duration
// and ends the span.
func (o *Observer) End(ctx context.Context, e gatehouse.RequestEnd) {
	r := state(ctx)
	var attrs []attribute.KeyValue
	errType := ""
	switch {
	case e.Code != 0:
		errType = strconv.Itoa(e.Code) // semconv MCP: the JSON-RPC error code
		attrs = append(attrs, semconv.RPCResponseStatusCodeKey.String(errType))
	case e.ToolError:
		errType = "tool_error"
	}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	m := attrs
	if r != nil && r.tool != "" {
		m = append(m[:len(m):len(m)], semconv.GenAIToolName(r.tool))
	}
	o.m.duration.Record(ctx, e.Duration.Seconds(), methodName(e.Method), m...)
	if r == nil {
		return
	}
	r.span.SetAttributes(attrs...)
	if errType != "" {
		r.span.SetStatus(codes.Error, errType)
	}
	r.span.End()
}

func clip(s string) string {
	if len(s) <= maxToolAttr {
		return s
	}
	return s[:maxToolAttr]
}
