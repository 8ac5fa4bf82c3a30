package gatehouse_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// argsClient is a go-sdk client of a server with an echo tool guarded by
// a guard with options o.
func argsClient(t *testing.T, o *gatehouse.Options) *mcp.ClientSession {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, basePolicy), o)
	ct := serve(t, g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestRedteamHugeArgumentsRefusedUnread: nothing bounded a tools/call's
// arguments, and the protected-path check parses every string argument as
// shell (about 0.5 µs a byte, three times over with typed numbers and
// schema defaults): one call with 8 MiB of "$(x)" cost 4.7 s of CPU before
// the handler ran, where HandlerTimeout does not reach, and an agent may
// have 64 such calls in flight. Now arguments over MaxArgumentBytes
// (default 4 MiB) are refused with -32602 before anything reads them.
func TestRedteamHugeArgumentsRefusedUnread(t *testing.T) {
	ctx := context.Background()
	huge := map[string]any{"text": strings.Repeat("$(x)", 2<<20)} // 8 MiB
	_, err := argsClient(t, nil).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: huge})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != gatehouse.CodeInvalidParams || !strings.Contains(string(we.Data), "MaxArgumentBytes") {
		t.Fatalf("8 MiB of arguments: %v", err)
	}
	// The model reads why (DenyAsToolResult).
	res, err := argsClient(t, &gatehouse.Options{DenyAsToolResult: true}).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: huge})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "MaxArgumentBytes") {
		t.Fatalf("as a tool result: %v %+v", err, res)
	}
	// Near misses: 1 MiB goes through; a server that raises the bound
	// takes the 8 MiB; a negative bound is refused by New.
	if res, err := argsClient(t, nil).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": strings.Repeat("a", 1<<20)}}); err != nil || res.IsError {
		t.Fatalf("1 MiB: %v %+v", err, res)
	}
	if res, err := argsClient(t, &gatehouse.Options{MaxArgumentBytes: 16 << 20}).CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": strings.Repeat("a", 8<<20)}}); err != nil || res.IsError {
		t.Fatalf("8 MiB under a 16 MiB bound: %v %+v", err, res)
	}
	if _, err := gatehouse.New(mustPolicy(t, basePolicy), &gatehouse.Options{MaxArgumentBytes: -1}); err == nil || !strings.Contains(err.Error(), "MaxArgumentBytes") {
		t.Errorf("negative MaxArgumentBytes: %v", err)
	}
}
