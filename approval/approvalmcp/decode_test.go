package approvalmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
)

type deleteArgs struct {
	Path    string         `json:"path"`
	Force   bool           `json:"force"`
	Count   int            `json:"count"`
	Opts    map[string]any `json:"opts"`
	Untaged string
}

// TestDecodeArgumentsReadsWhatTheHandlerReads: for every argument object
// approval.DecodeArguments accepts, it gives the value go-sdk's typed
// handler receives over a real client session; what it refuses includes
// every object with member names equal under case folding.
func TestDecodeArgumentsReadsWhatTheHandlerReads(t *testing.T) {
	got := make(chan deleteArgs, 1)
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	tool := &mcp.Tool{Name: "delete_file", InputSchema: json.RawMessage(`{"type":"object"}`)}
	mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, in deleteArgs) (*mcp.CallToolResult, any, error) {
		got <- in
		return &mcp.CallToolResult{}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, raw := range []string{
		`{"path":"/a"}`, `{"PATH":"/a"}`, `{"Path":"/a"}`, `{"\u212aey":1,"path":"/b"}`, `{"Untaged":"x"}`, `{"untaged":"x"}`,
		`{"path":"/a","force":true,"count":3,"opts":{"a":[1,2]}}`, `{"path":"/a","extra":1}`, `{"force":true,"FORCE":false}`,
		`{"path":"/etc/passwd","PATH":"/tmp/junk"}`, `{"PATH":"/tmp/junk","path":"/etc/passwd"}`, `{"path":"/a","opts":{"s":1,"\u017f":2}}`,
		`{"untaged":"a","Untaged":"b"}`, `{"count":12345678901234567891}`, `{"path":"/a","path":"/b"}`,
	} {
		var mine deleteArgs
		derr := approval.DecodeArguments(json.RawMessage(raw), &mine)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_file", Arguments: json.RawMessage(raw)})
		var theirs deleteArgs
		ran := false
		select {
		case theirs = <-got:
			ran = true
		default:
		}
		switch {
		case derr != nil:
			if !errors.Is(derr, approval.ErrInvalidArguments) {
				t.Errorf("%s: %v does not wrap ErrInvalidArguments", raw, derr)
			}
		case err != nil || res.IsError || !ran:
			t.Errorf("%s: DecodeArguments accepts, the handler did not run (%v)", raw, err)
		case !reflect.DeepEqual(mine, theirs):
			t.Errorf("%s: DecodeArguments %+v, handler %+v", raw, mine, theirs)
		}
	}
	var a deleteArgs
	if err := approval.DecodeArguments(json.RawMessage(`{"path":"/etc/passwd","PATH":"/tmp/junk"}`), &a); !errors.Is(err, approval.ErrInvalidArguments) {
		t.Fatalf("folded names: %v", err)
	}
}
