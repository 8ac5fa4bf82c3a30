package otel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	ghotel "github.com/gatehouse-dev/gatehouse/otel"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// benchPolicy is the root package's BenchmarkMiddleware policy.
const benchPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: bench}
spec:
  protected_paths: [~/.ssh, .env]
  tool_rules:
    - tool: fetch
      rate_limit: 100000000/second
      allow_args:
        url: "^https://github\\.com/[a-z0-9_-]+/[a-z0-9_.-]+$"
  dlp:
    patterns:
      - {name: AWS Key, regex: "(AKIA|ASIA)[A-Z0-9]{16}"}
`

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkGuardObserver is the guard's cost per tools/call (as the root
// BenchmarkMiddleware/audit: policy, rate limit, default DLP over a 1 KiB
// result, audit to a buffered writer) with no Observer and with the
// OpenTelemetry Observer on the SDK (a span per call exported to a no-op
// exporter, synchronously or by the batch processor; metrics aggregated by
// a manual reader). The difference is the Observer's overhead. Two
// references: nop, the guard's own hooks with an Observer that records
// nothing, and busy1us, an Observer that spends 1 µs per call, which shows
// what a microsecond of work on the request's path costs in this benchmark.
// nop-trace is nop whose Start puts a span's trace context into the
// request's context, as the OpenTelemetry Observer does: the hooks plus the
// trace and span ids in the audit event, without the SDK.
func BenchmarkGuardObserver(b *testing.B) {
	for _, name := range []string{"nil", "nop", "nop-trace", "busy1us", "otel-sdk", "otel-sdk-batch"} {
		b.Run(name, func(b *testing.B) {
			h, req := guarded(b, benchObserver(b, name))
			ctx := context.Background()
			if _, err := h(ctx, "tools/call", req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, "tools/call", req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchObserver is the Observer of one BenchmarkGuardObserver variant.
func benchObserver(b *testing.B, name string) gatehouse.Observer {
	switch name {
	case "nop":
		return gatehouse.NopObserver{}
	case "nop-trace":
		return traceObserver{}
	case "busy1us":
		return busyObserver{}
	case "otel-sdk", "otel-sdk-batch":
		export := sdktrace.WithSyncer(tracetest.NewNoopExporter())
		if name == "otel-sdk-batch" {
			export = sdktrace.WithBatcher(tracetest.NewNoopExporter())
		}
		tp := sdktrace.NewTracerProvider(export)
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		b.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
		obs, err := ghotel.New(&ghotel.Options{TracerProvider: tp, MeterProvider: mp})
		if err != nil {
			b.Fatal(err)
		}
		return obs
	}
	return nil
}

// traceObserver gives each request a trace context, as an Observer that
// starts a span does, and records nothing.
type traceObserver struct{ gatehouse.NopObserver }

func (traceObserver) Start(ctx context.Context, _ gatehouse.RequestStart) context.Context {
	return gatehouse.ContextWithTrace(ctx, gatehouse.TraceContext{TraceID: [16]byte{0x19, 1}, SpanID: [8]byte{0x19, 2}, Flags: 1})
}

// busyObserver spends 1 µs of CPU at the end of each request.
type busyObserver struct{ gatehouse.NopObserver }

func (busyObserver) End(context.Context, gatehouse.RequestEnd) {
	for t := time.Now(); time.Since(t) < time.Microsecond; {
	}
}

// guarded is the guard's middleware around a stub handler, as the root's
// BenchmarkMiddleware/audit, and a tools/call request for it.
func guarded(b *testing.B, obs gatehouse.Observer) (mcp.MethodHandler, *mcp.CallToolRequest) {
	w, err := audit.New(bufio.NewWriterSize(discard{}, 1<<16), nil)
	if err != nil {
		b.Fatal(err)
	}
	o := &gatehouse.Options{Pins: &gatehouse.PinOptions{Off: true}, Audit: w, Observer: obs}
	p, err := policy.ParseWith([]byte(benchPolicy), &policy.Options{Home: "/home/agent", WorkDir: "/srv"})
	if err != nil {
		b.Fatal(err)
	}
	g, err := gatehouse.New(p, o)
	if err != nil {
		b.Fatal(err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: result1K}}}
	// The guard reads the tool's definition (its schema's defaults)
	// through tools/list on the request's session: the stub answers.
	list := &mcp.ListToolsResult{Tools: []*mcp.Tool{{Name: "fetch", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	st, _ := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	recv, _ := g.Middleware()
	h := recv(func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			return list, nil
		}
		return res, nil
	})
	return h, &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "fetch", Arguments: json.RawMessage(`{"url":"https://github.com/gatehouse-dev/gatehouse"}`)}}
}

var result1K = func() string {
	s := ""
	for len(s) < 1024 {
		s += "The quick brown fox jumps over the lazy dog. 0123456789 "
	}
	return s[:1024]
}()

// BenchmarkObserverCalls is the Observer's own cost for one allowed
// tools/call: the calls the guard makes (Start, Decision, AuditWrite, End)
// on the SDK with a no-op exporter, without the guard around them.
func BenchmarkObserverCalls(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	obs, err := ghotel.New(&ghotel.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ctx := obs.Start(bg, gatehouse.RequestStart{Method: "tools/call", Agent: "a"})
		obs.Decision(ctx, gatehouse.DecisionEvent{Outcome: "ALLOW", Method: "tools/call", Tool: "fetch", Registered: true, Stage: "policy"})
		obs.AuditWrite(ctx, gatehouse.AuditWriteEvent{Decision: "ALLOW"})
		obs.End(ctx, gatehouse.RequestEnd{Method: "tools/call", Tool: "fetch", Registered: true})
	}
}

// BenchmarkSDKSpan is the floor under BenchmarkObserverCalls: one bare span
// started and ended on the same SDK setup, nothing else.
func BenchmarkSDKSpan(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	tr := tp.Tracer("bench")
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, span := tr.Start(bg, "tools/call")
		span.End()
	}
}

// BenchmarkSDKFloor is the least any Observer could do on this SDK for one
// allowed tools/call and still record what issue 19 asks for: a span
// started with the start attributes, given the decision's attributes and
// the tool's name, ended; gatehouse.decisions,
// gatehouse.audit.write.duration and mcp.server.operation.duration
// recorded with attribute sets built beforehand, in the span's context (so
// exemplars are offered, as the Observer's are).
func BenchmarkSDKFloor(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	tr, m := tp.Tracer("bench"), mp.Meter("bench")
	decisions, _ := m.Int64Counter("decisions")
	auditDur, _ := m.Float64Histogram("audit")
	opDur, _ := m.Float64Histogram("op")
	start := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.operation.name", "execute_tool"))}
	attrs := []attribute.KeyValue{attribute.String("gatehouse.decision", "ALLOW"), attribute.String("gatehouse.stage", "policy"), attribute.String("gen_ai.tool.name", "fetch")}
	set := metric.WithAttributeSet(attribute.NewSet(attrs...))
	add, rec := []metric.AddOption{set}, []metric.RecordOption{set}
	bg := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ctx, span := tr.Start(bg, "tools/call", start...)
		span.SetAttributes(attrs...)
		span.SetName("tools/call fetch")
		decisions.Add(ctx, 1, add...)
		auditDur.Record(ctx, 1e-5, rec...)
		opDur.Record(ctx, 1e-5, rec...)
		span.End()
	}
}
