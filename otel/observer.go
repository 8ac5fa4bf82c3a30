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
	sets   optionCache // metric attribute sets, built once per combination
	names  nameCache   // span names of registered tools
	starts startCache  // span start options per method
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

// Start starts the request's span, a child of the client's traceparent
// (params._meta, SEP-414) when there is one, else of the span in ctx. A
// span already in ctx (an HTTP server's) is linked when the client's
// traceparent becomes the parent instead.
func (o *Observer) Start(ctx context.Context, r gatehouse.RequestStart) context.Context {
	opts := o.starts.get(r.Method)
	if sc, ok := remote(r.Trace); ok {
		if local := trace.SpanContextFromContext(ctx); local.IsValid() && !local.Equal(sc) {
			opts = append(opts[:len(opts):len(opts)], trace.WithLinks(trace.Link{SpanContext: local}))
		}
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	ctx, span := o.tracer.Start(ctx, r.Method, opts...)
	if r.SessionID != "" {
		span.SetAttributes(semconv.McpSessionID(r.SessionID))
	}
	if sc := span.SpanContext(); sc.IsValid() {
		ctx = gatehouse.ContextWithTrace(ctx, gatehouse.TraceContext{
			TraceID: sc.TraceID(), SpanID: sc.SpanID(), Flags: byte(sc.TraceFlags()), State: sc.TraceState().String()})
	}
	return ctx
}

// startOptions are the span start options of one method, built once.
func startOptions(method string) []trace.SpanStartOption {
	attrs := []attribute.KeyValue{semconv.McpMethodNameKey.String(method)}
	if method == "tools/call" {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
	}
	return []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
}

// remote is t as a remote span context.
func remote(t gatehouse.TraceContext) (trace.SpanContext, bool) {
	if !t.Valid() {
		return trace.SpanContext{}, false
	}
	ts, err := trace.ParseTraceState(t.State)
	if err != nil {
		ts = trace.TraceState{} // a malformed tracestate is dropped, the parent kept (W3C §3.3.1)
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t.TraceID, SpanID: t.SpanID, TraceFlags: trace.TraceFlags(t.Flags), TraceState: ts, Remote: true}), true
}

// Decision names the span after the tool, sets the decision attributes
// and counts the decision.
func (o *Observer) Decision(ctx context.Context, d gatehouse.DecisionEvent) {
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		attrs := make([]attribute.KeyValue, 0, 4)
		attrs = append(attrs, KeyDecision.String(d.Outcome), KeyStage.String(d.Stage))
		if d.Rule != "" {
			attrs = append(attrs, KeyRule.String(d.Rule))
		}
		if d.Tool != "" {
			attrs = append(attrs, semconv.GenAIToolName(clip(d.Tool)))
		}
		span.SetAttributes(attrs...)
		if d.Registered && d.Tool != "" {
			span.SetName(o.names.get(d.Method, d.Tool)) // semconv: {mcp.method.name} {target}
		}
	}
	tool := metricTool(d.Tool, d.Registered)
	opt := o.sets.get(optionKey{kind: "decision", a: d.Outcome, b: d.Method, tool: tool}, func() []attribute.KeyValue {
		kv := []attribute.KeyValue{KeyDecision.String(d.Outcome), semconv.McpMethodNameKey.String(d.Method)}
		if tool != "" {
			kv = append(kv, semconv.GenAIToolName(tool))
		}
		return kv
	})
	o.m.decisions.Add(ctx, 1, opt.add...)
}

// metricTool is the tool as a metric attribute: the name of a tool the
// server has, otherTool for any other name, "" for no tool.
func metricTool(tool string, registered bool) string {
	switch {
	case tool == "":
		return ""
	case registered:
		return tool
	}
	return otherTool
}

// Ask records the wait for a human as a span event and a histogram.
func (o *Observer) Ask(ctx context.Context, a gatehouse.AskEvent) {
	attrs := []attribute.KeyValue{KeyAskChannel.String(a.Channel), KeyAskAnswer.String(a.Answer)}
	trace.SpanFromContext(ctx).AddEvent("gatehouse.ask", trace.WithAttributes(attrs...))
	o.m.ask.Record(ctx, a.Duration.Seconds(), o.sets.get(optionKey{kind: "ask", a: a.Channel, b: a.Answer}, func() []attribute.KeyValue { return attrs }).rec...)
}

// Redaction counts redacted matches by rule and direction.
func (o *Observer) Redaction(ctx context.Context, e gatehouse.RedactionEvent) {
	attrs := []attribute.KeyValue{KeyDLPRule.String(e.Rule), KeyDLPDirection.String(e.Direction)}
	trace.SpanFromContext(ctx).AddEvent("gatehouse.dlp.redaction", trace.WithAttributes(append(attrs, attribute.Int("gatehouse.dlp.count", e.Count))...))
	o.m.redactions.Add(ctx, int64(e.Count), o.sets.get(optionKey{kind: "dlp", a: e.Rule, b: e.Direction}, func() []attribute.KeyValue { return attrs }).add...)
}

// Limit counts a call refused by a limit.
func (o *Observer) Limit(ctx context.Context, l gatehouse.LimitEvent) {
	tool := metricTool(l.Tool, l.Registered)
	opt := o.sets.get(optionKey{kind: "limit", a: l.Kind, tool: tool}, func() []attribute.KeyValue {
		kv := []attribute.KeyValue{KeyLimitKind.String(l.Kind)}
		if tool != "" {
			kv = append(kv, semconv.GenAIToolName(tool))
		}
		return kv
	})
	o.m.limits.Add(ctx, 1, opt.add...)
}

// AuditWrite records the write's latency; a failure is also a span event.
func (o *Observer) AuditWrite(ctx context.Context, a gatehouse.AuditWriteEvent) {
	if a.Err == nil {
		o.m.audit.Record(ctx, a.Latency.Seconds(), o.sets.get(optionKey{kind: "audit"}, noAttrs).rec...)
		return
	}
	et := semconv.ErrorTypeKey.String("audit_write_failed")
	trace.SpanFromContext(ctx).AddEvent("gatehouse.audit.write_failed", trace.WithAttributes(et))
	o.m.audit.Record(ctx, a.Latency.Seconds(), metric.WithAttributes(et))
}

// End sets error.type and the status, records mcp.server.operation.duration
// and ends the span.
func (o *Observer) End(ctx context.Context, e gatehouse.RequestEnd) {
	errType := ""
	switch {
	case e.Code != 0:
		errType = strconv.Itoa(e.Code) // semconv MCP: the JSON-RPC error code
	case e.ToolError:
		errType = "tool_error"
	}
	tool := metricTool(e.Tool, e.Registered)
	opt := o.sets.get(optionKey{kind: "op", a: e.Method, b: errType, tool: tool}, func() []attribute.KeyValue {
		kv := []attribute.KeyValue{semconv.McpMethodNameKey.String(e.Method)}
		if errType != "" {
			kv = append(kv, semconv.ErrorTypeKey.String(errType))
		}
		if tool != "" {
			kv = append(kv, semconv.GenAIToolName(tool))
		}
		return kv
	})
	o.m.duration.Inst().Record(ctx, e.Duration.Seconds(), opt.rec...)
	span := trace.SpanFromContext(ctx)
	if errType != "" {
		if e.Code != 0 {
			span.SetAttributes(semconv.RPCResponseStatusCodeKey.String(errType))
		}
		span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		span.SetStatus(codes.Error, errType)
	}
	span.End()
}

func noAttrs() []attribute.KeyValue { return nil }

func clip(s string) string {
	if len(s) <= maxToolAttr {
		return s
	}
	return s[:maxToolAttr]
}
