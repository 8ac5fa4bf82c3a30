// Command otel runs a gatehouse-guarded MCP server whose decisions go to an
// OpenTelemetry collector over OTLP/HTTP, and to a hash-chained audit log
// whose events carry the same trace ids.
//
//	go run ./examples/otel -collector http://127.0.0.1:4318 [-audit FILE] [-demo]
//
// It serves MCP on stdin/stdout. With -demo it instead makes a few calls
// itself (one allowed, one blocked, one with a client traceparent in
// _meta, one whose result holds a secret), flushes the spans to the
// collector and exits: a quick way to see gatehouse in a tracing backend.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/audit"
	ghotel "github.com/gatehouse-dev/gatehouse/otel"
	"github.com/gatehouse-dev/gatehouse/policy"
)

const examplePolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: otel-example}
spec:
  allowed_tools: [echo, env]
  tool_rules:
    - tool: rm
      action: block
`

// DemoTraceparent is the client trace context the demo sends in _meta.
const DemoTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("otel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	collector := fs.String("collector", "http://127.0.0.1:4318", "OTLP/HTTP collector base URL (spans go to <URL>/v1/traces)")
	auditFile := fs.String("audit", "", "audit log file (default: none)")
	demo := fs.Bool("demo", false, "make a few calls, export their spans and exit instead of serving stdio")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := serve(ctx, *collector, *auditFile, *demo, stdout); err != nil {
		fmt.Fprintln(stderr, "otel:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, collector, auditFile string, demo bool, stdout io.Writer) (err error) {
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(collector+"/v1/traces"))
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName("gatehouse-otel-example"))))
	defer func() { err = errors.Join(err, tp.Shutdown(context.WithoutCancel(ctx))) }()
	s, err := guardedServer(tp, auditFile)
	if err != nil {
		return err
	}
	if !demo {
		return s.Run(ctx, &mcp.StdioTransport{})
	}
	return runDemo(ctx, s, stdout)
}

// guardedServer is an MCP server with two tools behind a Guard that
// reports to an OpenTelemetry Observer on tp.
func guardedServer(tp *sdktrace.TracerProvider, auditFile string) (*mcp.Server, error) {
	obs, err := ghotel.New(&ghotel.Options{TracerProvider: tp})
	if err != nil {
		return nil, err
	}
	p, err := policy.Parse([]byte(examplePolicy))
	if err != nil {
		return nil, err
	}
	o := &gatehouse.Options{Observer: obs}
	if auditFile != "" {
		w, err := audit.Open(auditFile, nil)
		if err != nil {
			return nil, err
		}
		o.Audit = w
	}
	g, err := gatehouse.New(p, o)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "otel-example", Version: "1"}, nil)
	tool := func(name, text string) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	tool("echo", "hello")
	tool("env", "AWS_ACCESS_KEY_ID=AKIA"+"IOSFODNN7EXAMPLE") // redacted by DLP
	tool("rm", "removed")
	g.Install(s)
	return s, nil
}

// runDemo calls the server's tools over in-memory transports.
func runDemo(ctx context.Context, s *mcp.Server, stdout io.Writer) error {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	calls := []*mcp.CallToolParams{
		{Name: "echo"},
		{Name: "echo", Meta: mcp.Meta{"traceparent": DemoTraceparent}},
		{Name: "env"},
		{Name: "rm"},
	}
	for _, p := range calls {
		res, err := cs.CallTool(ctx, p)
		switch {
		case err != nil:
			fmt.Fprintf(stdout, "%s: denied: %v\n", p.Name, err)
		default:
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			fmt.Fprintf(stdout, "%s: %s\n", p.Name, text)
		}
	}
	return nil
}
