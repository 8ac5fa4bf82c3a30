package otel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gatehouse-dev/gatehouse"
	ghotel "github.com/gatehouse-dev/gatehouse/otel"
	"github.com/gatehouse-dev/gatehouse/policy"
)

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
