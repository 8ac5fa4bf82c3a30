package otel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/gatehouse-dev/gatehouse"
)

// refDecision is Decision as first written, building everything per call:
// the reference the cached Decision must agree with.
func refDecision(o *Observer, ctx context.Context, d gatehouse.DecisionEvent) {
	span := trace.SpanFromContext(ctx)
	if span.IsRecording() {
		attrs := []attribute.KeyValue{KeyDecision.String(d.Outcome), KeyStage.String(d.Stage)}
		if d.Rule != "" {
			attrs = append(attrs, KeyRule.String(d.Rule))
		}
		if d.Tool != "" {
			attrs = append(attrs, semconv.GenAIToolName(clip(d.Tool)))
		}
		span.SetAttributes(attrs...)
		if d.Registered && d.Tool != "" {
			span.SetName(d.Method + " " + d.Tool)
		}
	}
	tool := metricTool(d.Tool, d.Registered)
	kv := []attribute.KeyValue{KeyDecision.String(d.Outcome), semconv.McpMethodNameKey.String(d.Method)}
	if tool != "" {
		kv = append(kv, semconv.GenAIToolName(tool))
	}
	o.m.decisions.Add(ctx, 1, metric.WithAttributes(kv...))
}

// refStart is Start as first written: the session id set after the start.
func refStart(o *Observer, ctx context.Context, r gatehouse.RequestStart) context.Context {
	opts := startOptions(r.Method)
	if sc, ok := remote(r.Trace); ok {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	ctx, span := o.tracer.Start(ctx, r.Method, opts...)
	if r.SessionID != "" {
		span.SetAttributes(semconv.McpSessionID(r.SessionID))
	}
	return ctx
}

// rig is an Observer on in-memory exporters.
type rig struct {
	o      *Observer
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newRig(t *testing.T) rig {
	r := rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	o, err := New(&Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	r.o = o
	return r
}

// spansAndCounts is what r recorded: each span's name and sorted
// attributes, and gatehouse.decisions' points.
func (r rig) spansAndCounts(t *testing.T) (spans, counts []string) {
	for _, s := range r.spans.Ended() {
		var kv []string
		for _, a := range s.Attributes() {
			kv = append(kv, string(a.Key)+"="+a.Value.Emit())
		}
		sort.Strings(kv)
		spans = append(spans, s.Name()+" "+strings.Join(kv, ","))
	}
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == MetricDecisions {
				for _, p := range sum.DataPoints {
					counts = append(counts, fmt.Sprint(p.Attributes.ToSlice(), p.Value))
				}
			}
		}
	}
	sort.Strings(counts)
	return spans, counts
}

// TestDecisionMatchesReference: for random decisions (outcomes, stages,
// rules, registered, unknown, empty, over-long and "_OTHER" tool names,
// repeated so that the caches answer; with and without a session id; one
// in four under a client's unsampled traceparent, so not recording), the
// cached Decision and the session id among the start options leave the
// same span names, span attributes and counter points as the reference.
func TestDecisionMatchesReference(t *testing.T) {
	outcomes := []string{"ALLOW", "BLOCK", "ASK", "RATE_LIMITED", "PROTECTED_PATH", "ALLOW_MONITOR"}
	stages := []string{"policy", "rate", "answer", "method", "decode", "recover"}
	rules := []string{"", "rules[2]", "acp-1", "^https://x$"}
	tools := []string{"", "fetch", "echo", otherTool, "tools/" + strings.Repeat("n", 300), "probe_1", "[REDACTED:AWS Key]"}
	methods := []string{"tools/call", "initialize", "resources/read"}
	rng := rand.New(rand.NewPCG(19, 2))
	got, ref := newRig(t), newRig(t)
	for i := range 400 {
		d := gatehouse.DecisionEvent{Outcome: outcomes[rng.IntN(len(outcomes))], Stage: stages[rng.IntN(len(stages))],
			Rule: rules[rng.IntN(len(rules))], Method: methods[rng.IntN(len(methods))], Tool: tools[rng.IntN(len(tools))], Registered: rng.IntN(2) == 0}
		r := gatehouse.RequestStart{Method: d.Method, SessionID: []string{"", "s1", "s2"}[i%3]}
		if i%4 == 3 {
			r.Trace = gatehouse.TraceContext{TraceID: [16]byte{19, byte(i)}, SpanID: [8]byte{2}} // flags 0: not sampled
		}
		ctx := got.o.Start(context.Background(), r)
		got.o.Decision(ctx, d)
		got.o.End(ctx, gatehouse.RequestEnd{Method: d.Method})
		ctx = refStart(ref.o, context.Background(), r)
		refDecision(ref.o, ctx, d)
		ref.o.End(ctx, gatehouse.RequestEnd{Method: d.Method})
	}
	gs, gc := got.spansAndCounts(t)
	rs, rc := ref.spansAndCounts(t)
	if len(gs) != 300 || len(gc) == 0 {
		t.Fatalf("%d spans, %d points", len(gs), len(gc))
	}
	for i := range gs {
		if gs[i] != rs[i] {
			t.Fatalf("span %d:\n got %s\nwant %s", i, gs[i], rs[i])
		}
	}
	if fmt.Sprint(gc) != fmt.Sprint(rc) {
		t.Errorf("decision counts:\n got %v\nwant %v", gc, rc)
	}
}
