package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A handler below the Guard that answers tools/list with a typed nil
// result is a listing failure the call is denied for, with that reason;
// it used to be a nil dereference (recovered: "the server failed").
func TestNilToolListIsAListingFailure(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, `{apiVersion: aip.io/v1alpha1, kind: AgentPolicy, metadata: {name: n}, spec: {allowed_tools: [fetch]}}`), nil)
	st, _ := mcp.NewInMemoryTransports()
	ss, err := mcp.NewServer(&mcp.Implementation{Name: "n", Version: "1"}, nil).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	ran := false
	recv, _ := g.Middleware()
	h := recv(func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			return (*mcp.ListToolsResult)(nil), nil
		}
		ran = true
		return &mcp.CallToolResult{}, nil
	})
	_, err = h(context.Background(), "tools/call", &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "fetch", Arguments: json.RawMessage(`{}`)}})
	var je *jsonrpc.Error
	if ran || err == nil {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	if !errors.As(err, &je) || !strings.Contains(string(je.Data), "could not be listed") {
		t.Fatalf("want the listing failure's reason, got %v (%s)", err, dataOf(je))
	}
}

func dataOf(je *jsonrpc.Error) string {
	if je == nil {
		return ""
	}
	return string(je.Data)
}
