package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

const rvdElicitPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: rvd-elicit}
spec:
  tool_rules:
    - tool: deploy
      action: ask
    - tool: deploy_all
      action: ask
`

// TestRedTeamRVD_ElicitationApprovalOfOneCallRunsNoOther: an AddTool
// approval (the signed requestState of a 2026-07-28 round trip, with the
// client's yes) asked for deploy {"env":"staging"} on server "mail" by
// agent raw-agent runs nothing else: not other arguments, not a tool of
// the same definition under another name, not the same tool on another
// server guarded by the same Guard, not for another agent (a sessionless
// client names itself per request). Refusals do not burn it; the same
// call spelled otherwise runs once.
func TestRedTeamRVD_ElicitationApprovalOfOneCallRunsNoOther(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, rvdElicitPolicy), nil)
	var runs atomic.Int64
	var ran atomic.Value
	ran.Store("")
	add := func(s *mcp.Server, name string) {
		gatehouse.AddTool(s, g, &mcp.Tool{Name: name}, func(_ context.Context, req *mcp.CallToolRequest, a map[string]any) (*mcp.CallToolResult, any, error) {
			runs.Add(1)
			b, _ := json.Marshal(a)
			ran.Store(req.Params.Name + string(b))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil, nil
		})
	}
	server := func(name string, tools ...string) *rawConn {
		s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
		for _, tl := range tools {
			add(s, tl)
		}
		g.Install(s)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return dialRaw(t, ct, newProtocol)
	}
	a, b := server("mail", "deploy", "deploy_all"), server("mail-eu", "deploy")
	first := a.callTool(1, "deploy", json.RawMessage(`{"env":"staging"}`))
	state, _ := first["result"].(map[string]any)["requestState"].(string)
	if state == "" {
		t.Fatalf("first round: %v", first)
	}
	yes := map[string]any{gatehouse.ApprovalInputID: map[string]any{"action": "accept", "content": map[string]any{"approve": true}}}
	retry := func(c *rawConn, id any, tool, args, agent string) map[string]any {
		p := map[string]any{"name": tool, "arguments": json.RawMessage(args), "requestState": state, "inputResponses": yes}
		if agent != "" {
			p["_meta"] = map[string]any{"io.modelcontextprotocol/clientInfo": map[string]any{"name": agent, "version": "1"}}
		}
		return c.request(id, "tools/call", p)
	}
	for i, c := range []struct {
		name       string
		conn       *rawConn
		tool, args string
		agent      string
		code       string
	}{
		{"other value", a, "deploy", `{"env":"prod"}`, "", "-32004"},
		{"member added", a, "deploy", `{"env":"staging","force":true}`, "", "-32004"},
		{"null member added", a, "deploy", `{"env":"staging","force":null}`, "", "-32004"},
		{"no arguments", a, "deploy", `{}`, "", "-32004"},
		{"array for the value", a, "deploy", `{"env":["staging"]}`, "", "-32004"},
		{"folded duplicate", a, "deploy", `{"env":"staging","ENV":"prod"}`, "", "-32602"},
		{"exact duplicate", a, "deploy", `{"env":"staging","env":"prod"}`, "", "-32602"},
		{"same definition, other name", a, "deploy_all", `{"env":"staging"}`, "", "-32004"},
		{"same tool, other server", b, "deploy", `{"env":"staging"}`, "", "-32004"},
		{"another agent", a, "deploy", `{"env":"staging"}`, "other-agent", "-32004"},
	} {
		res := retry(c.conn, fmt.Sprint("attack", i), c.tool, c.args, c.agent)
		if e := rpcErr(res); fmt.Sprint(e["code"]) != c.code || runs.Load() != 0 {
			t.Errorf("%s: ATTACK? %v runs=%d (%s)", c.name, res, runs.Load(), ran.Load())
		}
	}
	// Near miss: the approved call, spelled otherwise, runs once.
	if res := retry(a, "ok", "deploy", ` { "env" : "sta\u0067ing" } `, ""); rpcErr(res) != nil || runs.Load() != 1 || ran.Load() != `deploy{"env":"staging"}` {
		t.Fatalf("the approved call: %v runs=%d (%s)", res, runs.Load(), ran.Load())
	}
	if res := retry(a, "replay", "deploy", `{"env":"staging"}`, ""); fmt.Sprint(rpcErr(res)["code"]) != "-32004" || runs.Load() != 1 {
		t.Fatalf("replay: %v runs=%d", res, runs.Load())
	}
}
