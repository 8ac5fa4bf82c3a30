package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team (issue 16 variant, class a): arguments with two members of one
// name reached the Asker and the handler. The policy and the human saw the
// last member (argjson decodes like encoding/json); a handler that reads
// the raw arguments with a first-wins reader (gjson, jsonparser and other
// streaming readers) ran the other. Passkey and elicitation approvals hash
// the raw text canonically and refused such arguments; the Asker, grants'
// policy check and every plain call did not, and only an *audit.Writer (an
// optional sink) refused them at commit, after the human was asked. The
// decode stage now refuses them for every call, with names equal under case
// folding, at any depth.

const dupPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [read_file]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: deploy
      action: ask
`

// dupRig is a guard without an audit log whose Asker approves and records
// what it was shown, over tools that return the raw arguments they got.
type dupRig struct {
	c     *rawConn
	asked atomic.Int64
	ran   atomic.Int64
	shown atomic.Value
}

func newDupRig(t *testing.T) *dupRig {
	t.Helper()
	r := &dupRig{}
	g := mustGuard(t, mustPolicy(t, dupPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Timeout: time.Second,
		Asker: gatehouse.AskerFunc(func(_ context.Context, req gatehouse.AskRequest) (gatehouse.Answer, error) {
			r.asked.Add(1)
			r.shown.Store(fmt.Sprint(req.Args))
			return gatehouse.Answer{Approved: true}, nil
		})}})
	ct := serve(t, g, func(s *mcp.Server) {
		for _, name := range []string{"deploy", "read_file"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				r.ran.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "args " + string(req.Params.Arguments)}}}, nil
			})
		}
	})
	r.c = dialRaw(t, ct, "2025-06-18")
	return r
}

func TestRedteamDuplicateNamesRefusedBeforeAsking(t *testing.T) {
	for _, tc := range []struct{ name, tool, args string }{
		{"ask: exact duplicate", "deploy", `{"env":"prod","env":"staging"}`},
		{"ask: escaped spelling of the same name", "deploy", `{"env":"prod","\u0065nv":"staging"}`},
		{"ask: duplicate in a nested object", "deploy", `{"env":"staging","opts":{"force":true,"force":false}}`},
		{"ask: duplicate in an object in an array", "deploy", `{"env":"staging","steps":[{"run":"rm -rf /","run":"true"}]}`},
		{"ask: names equal under case folding", "deploy", `{"env":"prod","ENV":"staging"}`},
		{"ask: Kelvin sign folds to k", "deploy", "{\"key\":\"prod\",\"\u212aey\":\"staging\"}"},
		{"allowed: protected path hidden in the first member", "read_file", `{"path":"~/.ssh/id_rsa","path":"/tmp/notes.txt"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newDupRig(t)
			res := r.c.callTool(1, tc.tool, json.RawMessage(tc.args))
			e := rpcErr(res)
			if e == nil || fmt.Sprint(e["code"]) != "-32602" || r.asked.Load() != 0 || r.ran.Load() != 0 {
				t.Fatalf("want -32602 with no ask and no run; asked %d (shown %v), ran %d: %v", r.asked.Load(), r.shown.Load(), r.ran.Load(), res)
			}
		})
	}
}

// TestRedteamDuplicateNamesNearMisses: names that are distinct under case
// folding, and one name in different objects, still ask and run.
func TestRedteamDuplicateNamesNearMisses(t *testing.T) {
	for _, tc := range []struct{ name, tool, args string }{
		{"distinct names", "deploy", `{"env":"staging","envs":"x"}`},
		{"a Cyrillic look-alike is another name", "deploy", `{"env":"staging","еnv":"x"}`},
		{"one name in two objects", "deploy", `{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}`},
		{"upper-case names without a folded twin", "deploy", `{"Env":"staging","PATH":"/bin","Kelvin":1}`},
		{"ß and ss are different names", "deploy", `{"straße":1,"strasse":2}`},
		{"allowed call", "read_file", `{"path":"/tmp/notes.txt","Mode":"r"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newDupRig(t)
			res := r.c.callTool(1, tc.tool, json.RawMessage(tc.args))
			if e := rpcErr(res); e != nil || r.ran.Load() != 1 {
				t.Fatalf("want the call to run: %v", res)
			}
		})
	}
}
