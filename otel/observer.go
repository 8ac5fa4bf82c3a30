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
	tracer    trace.Tracer
	m         instruments
	sets      cache[optionKey, *options]             // metric attribute sets, built once per combination
	decisions cache[decisionKey, *decision]          // span attributes, name and counter set per kind of decision
	starts    cache[string, []trace.SpanStartOption] // span start options per method
	auditOK   *options                               // gatehouse.audit.write.duration's set for a write that succeeded
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
	return &Observer{tracer: opts.TracerProvider.Tracer(ScopeName), m: m, auditOK: newOptions(nil)}, nil
}

// Start starts the request's span, a child of the client's traceparent
// (params._meta, SEP-414) when there is one, else of the span in ctx. A
// span already in ctx (an HTTP server's) is linked when the client's
// traceparent becomes the parent instead.
func (o *Observer) Start(ctx context.Context, r gatehouse.RequestStart) context.Context {
	opts := o.starts.get(r.Method, func() []trace.SpanStartOption { return startOptions(r.Method) })
	if r.SessionID != "" {
		opts = append(opts[:len(opts):len(opts)], trace.WithAttributes(semconv.McpSessionID(r.SessionID)))
	}
	if sc, ok := remote(r.Trace); ok {
		if local := trace.SpanContextFromContext(ctx); local.IsValid() && !local.Equal(sc) {
			opts = append(opts[:len(opts):len(opts)], trace.WithLinks(trace.Link{SpanContext: local}))
		}
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	ctx, span := o.tracer.Start(ctx, r.Method, opts...)
	if sc := span.SpanContext(); sc.IsValid() {
		ctx = gatehouse.ContextWithTrace(ctx, gatehouse.TraceContext{
			TraceID: sc.TraceID(), SpanID: sc.SpanID(), Flags: byte(sc.TraceFlags()), State: sc.TraceState().String()})
	}
	return ctx
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
	k := decisionKey{outcome: d.Outcome, stage: d.Stage, rule: d.Rule, method: d.Method,
		tool: metricTool(d.Tool, d.Registered), registered: d.Registered && d.Tool != ""}
	dec := o.decisions.get(k, func() *decision { return newDecision(k) })
	// No IsRecording first (it takes the span's lock): SetAttributes and
	// SetName do nothing on a span that does not record. Only the slice
	// built for an unregistered name is worth sparing such a span.
	span := trace.SpanFromContext(ctx)
	attrs := dec.attrs
	if !k.registered && d.Tool != "" && span.IsRecording() {
		// A name the server does not have: on the span as sent (cut),
		// never a cache key.
		attrs = append(attrs[:len(attrs):len(attrs)], semconv.GenAIToolName(clip(d.Tool)))
	}
	span.SetAttributes(attrs...)
	if dec.name != "" {
		span.SetName(dec.name)
	}
	o.m.decisions.Add(ctx, 1, dec.add...)
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
	o.m.ask.Record(ctx, a.Duration.Seconds(), o.sets.get(optionKey{kind: "ask", a: a.Channel, b: a.Answer}, func() *options { return newOptions(attrs) }).rec...)
}

// Redaction counts redacted matches by rule and direction.
func (o *Observer) Redaction(ctx context.Context, e gatehouse.RedactionEvent) {
	attrs := []attribute.KeyValue{KeyDLPRule.String(e.Rule), KeyDLPDirection.String(e.Direction)}
	trace.SpanFromContext(ctx).AddEvent("gatehouse.dlp.redaction", trace.WithAttributes(append(attrs, attribute.Int("gatehouse.dlp.count", e.Count))...))
	o.m.redactions.Add(ctx, int64(e.Count), o.sets.get(optionKey{kind: "dlp", a: e.Rule, b: e.Direction}, func() *options { return newOptions(attrs) }).add...)
}

// Limit counts a call refused by a limit.
func (o *Observer) Limit(ctx context.Context, l gatehouse.LimitEvent) {
	tool := metricTool(l.Tool, l.Registered)
	opt := o.sets.get(optionKey{kind: "limit", a: l.Kind, tool: tool}, func() *options {
		kv := []attribute.KeyValue{KeyLimitKind.String(l.Kind)}
		if tool != "" {
			kv = append(kv, semconv.GenAIToolName(tool))
		}
		return newOptions(kv)
	})
	o.m.limits.Add(ctx, 1, opt.add...)
}

// AuditWrite records the write's latency; a failure is also a span event.
func (o *Observer) AuditWrite(ctx context.Context, a gatehouse.AuditWriteEvent) {
	if a.Err == nil {
		o.m.audit.Record(ctx, a.Latency.Seconds(), o.auditOK.rec...)
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
	opt := o.sets.get(optionKey{kind: "op", a: e.Method, b: errType, tool: tool}, func() *options {
		kv := []attribute.KeyValue{semconv.McpMethodNameKey.String(e.Method)}
		if errType != "" {
			kv = append(kv, semconv.ErrorTypeKey.String(errType))
		}
		if tool != "" {
			kv = append(kv, semconv.GenAIToolName(tool))
		}
		return newOptions(kv)
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

func clip(s string) string {
	if len(s) <= maxToolAttr {
		return s
	}
	return s[:maxToolAttr]
}
