package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Other ways to change a tool under the guard, and other ways to call it:
// each must meet the pin.
func TestPinRedteam(t *testing.T) {
	type env struct {
		g    *gatehouse.Guard
		s    *mcp.Server
		tool *mcp.Tool // deploy, as registered
		runs *atomic.Int64
	}
	start := func(t *testing.T, o *gatehouse.Options, so *mcp.ServerOptions) env {
		e := env{runs: &atomic.Int64{}}
		e.g = mustGuard(t, mustPolicy(t, pinPolicy), o)
		e.s = mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, so)
		add := func(tl *mcp.Tool) {
			e.s.AddTool(tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				e.runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
		}
		for _, name := range []string{"a1", "a2", "a3", "status", "fresh"} {
			add(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
		e.tool = deployTool(nil)
		add(e.tool)
		e.g.Install(e.s)
		return e
	}
	connect := func(t *testing.T, s *mcp.Server, proto string) *rawConn {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return dialRaw(t, ct, proto)
	}
	code := func(res map[string]any) string { return fmt.Sprint(rpcErr(res)["code"]) }

	t.Run("definition mutated in place, no re-registration, no notification", func(t *testing.T) {
		e := start(t, nil, nil)
		c := connect(t, e.s, "2025-06-18")
		e.tool.Description = "now evil" // the server lists this very pointer
		if res := c.callTool(1, "deploy", map[string]any{}); code(res) != "-32013" || e.runs.Load() != 0 {
			t.Fatalf("%v", res)
		}
	})
	t.Run("changed tool on a later page of a paginated list", func(t *testing.T) {
		e := start(t, nil, &mcp.ServerOptions{PageSize: 1})
		c := connect(t, e.s, "2025-06-18")
		e.s.AddTool(deployTool(func(t *mcp.Tool) { t.Description = "x" }), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			e.runs.Add(1)
			return &mcp.CallToolResult{}, nil
		})
		if res := c.callTool(1, "deploy", map[string]any{}); code(res) != "-32013" || e.runs.Load() != 0 {
			t.Fatalf("%v", res)
		}
		if res := c.callTool(2, "status", map[string]any{}); rpcErr(res) != nil {
			t.Fatalf("unchanged tool on another page: %v", res)
		}
	})
	for _, proto := range []string{"2025-03-26", "2025-06-18", newProtocol} {
		t.Run("protocol "+proto, func(t *testing.T) {
			e := start(t, nil, nil)
			c := connect(t, e.s, proto)
			e.tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
			if res := c.callTool(1, "deploy", map[string]any{}); code(res) != "-32013" || e.runs.Load() != 0 {
				t.Fatalf("%v", res)
			}
		})
	}
	t.Run("another spelling of the changed tool", func(t *testing.T) {
		e := start(t, nil, nil)
		c := connect(t, e.s, "2025-06-18")
		e.tool.Description = "x"
		for i, name := range []string{"Deploy", "deploy\u200b", " deploy", "ｄｅｐｌｏｙ"} {
			if res := c.callTool(i, name, map[string]any{}); rpcErr(res) == nil || e.runs.Load() != 0 {
				t.Fatalf("%q: %v", name, res)
			}
		}
	})
	t.Run("batch elements (2025-03-26, byte stream)", func(t *testing.T) {
		e := start(t, nil, nil)
		send, read := byteStream(t, e.s)
		e.tool.Description = "x"
		send(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{}}},` +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}]`)
		got := read()
		for !strings.Contains(got, `"id":2`) || !strings.Contains(got, `"id":1`) {
			got += read()
		}
		if e.runs.Load() != 1 || strings.Count(got, "-32013") != 1 {
			t.Fatalf("%d tools ran from the batch (only status may): %s", e.runs.Load(), got)
		}
	})
	t.Run("annotation flipped to read-only under AnnotationDefaults", func(t *testing.T) {
		e := start(t, &gatehouse.Options{AnnotationDefaults: true}, nil)
		c := connect(t, e.s, "2025-06-18")
		fresh := &mcp.Tool{Name: "unlisted", InputSchema: json.RawMessage(`{"type":"object"}`)}
		e.s.AddTool(fresh, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			e.runs.Add(1)
			return &mcp.CallToolResult{}, nil
		})
		// Unannotated: asked, and with no asker denied.
		if res := c.callTool(1, "unlisted", map[string]any{}); code(res) != "-32004" || e.runs.Load() != 0 {
			t.Fatalf("unannotated: %v", res)
		}
		fresh.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true} // to be allowed without asking
		if res := c.callTool(2, "unlisted", map[string]any{}); code(res) != "-32013" || e.runs.Load() != 0 {
			t.Fatalf("a tool that declared itself read-only after it was pinned: %v", res)
		}
	})
	t.Run("definition without a canonical form", func(t *testing.T) {
		e := start(t, nil, nil)
		c := connect(t, e.s, "2025-06-18")
		e.tool.InputSchema = json.RawMessage(`{"type":"object","type":"object"}`) // duplicate member
		if res := c.callTool(1, "deploy", map[string]any{}); code(res) != "-32603" || e.runs.Load() != 0 {
			t.Fatalf("%v", res)
		}
		list := c.request(2, "tools/list", map[string]any{})
		b, _ := json.Marshal(list)
		if !strings.Contains(string(b), `"status":"undigestable"`) {
			t.Fatalf("tools/list: %s", b)
		}
	})
	t.Run("DenyAsToolResult", func(t *testing.T) {
		e := start(t, &gatehouse.Options{DenyAsToolResult: true}, nil)
		c := connect(t, e.s, "2025-06-18")
		e.tool.Description = "x"
		res := c.callTool(1, "deploy", map[string]any{})
		if text := resultText(res); !strings.Contains(text, "Tool definition changed") || !strings.Contains(text, `"deploy"`) || e.runs.Load() != 0 {
			t.Fatalf("%v", res)
		}
	})
	t.Run("one guard, two servers: acceptance on one does not re-pin the other's other definition", func(t *testing.T) {
		e := start(t, nil, nil)
		s2 := mcp.NewServer(&mcp.Implementation{Name: "s2", Version: "1"}, nil)
		t2 := deployTool(nil)
		s2.AddTool(t2, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			e.runs.Add(1)
			return &mcp.CallToolResult{}, nil
		})
		e.g.Install(s2)
		c1, c2 := connect(t, e.s, "2025-06-18"), connect(t, s2, "2025-06-18")
		e.tool.Description = "one"
		t2.Description = "two"
		if err := e.g.AcceptDefinition("deploy", digest(t, e.tool)); err != nil {
			t.Fatal(err)
		}
		if res := c1.callTool(1, "deploy", map[string]any{}); rpcErr(res) != nil {
			t.Fatalf("the accepted definition: %v", res)
		}
		if res := c2.callTool(2, "deploy", map[string]any{}); code(res) != "-32013" || e.runs.Load() != 1 {
			t.Fatalf("another definition under the same name: %v", res)
		}
	})
}

// TestPinOverStreamableHTTP: over a real streamable-HTTP listener, stateful
// and stateless, a changed tool is refused and an unchanged one runs.
func TestPinOverStreamableHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		g := mustGuard(t, mustPolicy(t, pinPolicy), nil)
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		tool := deployTool(nil)
		var runs atomic.Int64
		for _, tl := range []*mcp.Tool{tool, {Name: "status", InputSchema: json.RawMessage(`{"type":"object"}`)}} {
			s.AddTool(tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		}
		g.Install(s)
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless}))
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		tool.Description = "changed"
		_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != gatehouse.CodeDefinitionChanged || runs.Load() != 0 {
			t.Errorf("stateless=%v: changed tool: %v runs=%d", stateless, err, runs.Load())
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "status", Arguments: map[string]any{}}); err != nil || runs.Load() != 1 {
			t.Errorf("stateless=%v: unchanged tool: %v", stateless, err)
		}
		cs.Close()
		hs.Close()
	}
}
