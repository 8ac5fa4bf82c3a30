package otel_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gatehouse-dev/gatehouse"
	ghotel "github.com/gatehouse-dev/gatehouse/otel"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// Guard a server and record one span per request: here into an in-memory
// recorder, in production into your TracerProvider's exporter.
func ExampleNew() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs, err := ghotel.New(&ghotel.Options{TracerProvider: tp})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: ex}\nspec:\n  allowed_tools: [echo]\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := gatehouse.New(p, &gatehouse.Options{Observer: obs})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "ex", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
	})
	g.Install(s)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}})
	for _, sp := range spans.Ended() {
		if sp.Name() == "tools/call echo" {
			fmt.Println(sp.Name(), attrOf(sp, "gatehouse.decision"), sp.Parent().TraceID())
		}
	}
	// Output: tools/call echo ALLOW 4bf92f3577b34da6a3ce929d0e0e4736
}
