package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	ghotel "github.com/gatehouse-dev/gatehouse/otel"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const testPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: otel-test}
spec:
  allowed_tools: [echo, secret, read]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: limited
      rate_limit: 2/minute
    - tool: deploy
      action: ask
    - tool: never
      action: block
  dlp:
    patterns:
      - {name: AWS Key, regex: "AKIA[0-9A-Z]{16}"}
`

const fakeKey = "AKIA" + "IOSFODNN7EXAMPLE"

// env is a guarded go-sdk server with an OTel Observer on in-memory
// exporters, and a go-sdk client connected to it.
type env struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	log    *bytes.Buffer
	mu     sync.Mutex // guards log: the audit Writer writes from the server's goroutines
	cs     *mcp.ClientSession
}

type lockedBuffer struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (b lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func newEnv(t *testing.T, asker gatehouse.Asker) *env {
	t.Helper()
	e := &env{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), log: &bytes.Buffer{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader))
	t.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	obs, err := ghotel.New(&ghotel.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	w, err := audit.New(lockedBuffer{&e.mu, e.log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.ParseWith([]byte(testPolicy), &policy.Options{Home: "/home/agent", WorkDir: "/srv"})
	if err != nil {
		t.Fatal(err)
	}
	o := &gatehouse.Options{Audit: w, Observer: obs}
	if asker != nil {
		o.Ask = &gatehouse.AskOptions{Asker: asker}
	}
	g, err := gatehouse.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-test", Version: "1"}, nil)
	for _, name := range []string{"echo", "secret", "read", "limited", "deploy", "never"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := "ok"
			if req.Params.Name == "secret" {
				text = "key " + fakeKey
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	g.Install(s)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	e.cs = cs
	return e
}

// call makes one tools/call, with a traceparent in _meta when tp is set.
func (e *env) call(t *testing.T, tool string, args map[string]any, tp string) (*mcp.CallToolResult, error) {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if tp != "" {
		p.Meta = mcp.Meta{"traceparent": tp}
	}
	return e.cs.CallTool(context.Background(), p)
}

// auditLog returns the audit log written so far.
func (e *env) auditLog() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]byte(nil), e.log.Bytes()...)
}

// metrics collects the metrics recorded so far.
func (e *env) metrics(t *testing.T) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}
