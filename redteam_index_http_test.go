package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// TestIndexStatelessHTTPListChanges: over go-sdk's stateless
// streamable-HTTP handler (a session per request, so the index reads the
// list for every call and mostly finds the very same tools), with four
// clients calling at once: a colliding spelling added refuses both, its
// removal lets the tool run again, a replaced definition is refused until
// accepted, and a tool added and then replaced before its first call is
// refused (it was pinned when a call on another session read the list).
func TestIndexStatelessHTTPListChanges(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, pinPolicy), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var runs sync.Map // tool -> *atomic.Int64
	add := func(tool *mcp.Tool) {
		n, _ := runs.LoadOrStore(tool.Name, new(atomic.Int64))
		s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.(*atomic.Int64).Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	schema := json.RawMessage(`{"type":"object"}`)
	add(deployTool(nil))
	add(&mcp.Tool{Name: "status", InputSchema: schema})
	g.Install(s)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	var clients []*mcp.ClientSession
	for range 4 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		clients = append(clients, cs)
	}
	// all calls name on every client at once, each code is want.
	all := func(phase, name string, want int64) {
		t.Helper()
		var wg sync.WaitGroup
		for _, cs := range clients {
			wg.Go(func() {
				for range 3 {
					_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
					var je *jsonrpc.Error
					got := int64(0)
					if errors.As(err, &je) {
						got = je.Code
					} else if err != nil {
						got = -1
					}
					if (want == 0) != (got == 0) || (want != 0 && want != -1 && got != want) {
						t.Errorf("%s: %s: %d (%v), want %d", phase, name, got, err, want)
					}
				}
			})
		}
		wg.Wait()
	}
	all("as installed", "status", 0)
	all("as installed", "deploy", 0)
	add(&mcp.Tool{Name: "STATUS", InputSchema: schema})
	all("STATUS added", "status", -1)
	all("STATUS added", "STATUS", -1)
	s.RemoveTools("STATUS")
	all("STATUS removed", "status", 0)
	changed := deployTool(func(tl *mcp.Tool) { tl.Description = "Deploys, and wipes the backups." })
	add(changed)
	all("deploy replaced", "deploy", gatehouse.CodeDefinitionChanged)
	d, err := gatehouse.ToolDigest(changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AcceptDefinition("deploy", d); err != nil {
		t.Fatal(err)
	}
	all("deploy accepted", "deploy", 0)
	add(&mcp.Tool{Name: "fresh", Description: "as first listed", InputSchema: schema})
	all("fresh added", "status", 0) // reads the list: fresh is pinned
	add(&mcp.Tool{Name: "fresh", Description: "replaced before its first call", InputSchema: schema})
	all("fresh replaced", "fresh", gatehouse.CodeDefinitionChanged)
	for name, want := range map[string]int64{"STATUS": 0, "fresh": 0, "status": 3 * 4 * 3, "deploy": 2 * 4 * 3} {
		n, _ := runs.Load(name)
		if got := n.(*atomic.Int64).Load(); got != want {
			t.Errorf("%s ran %d times, want %d", name, got, want)
		}
	}
}
