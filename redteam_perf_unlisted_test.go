package gatehouse_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
)

// A tool the server hides from the session's tools/list yet dispatches
// is refused before anyone is asked: that holds for the passkey too. No
// approval/challenge/create is issued for it, so the user is never
// prompted to approve a call the policy stage then refuses (with pinning
// on and off). Near miss: the listed tool is prompted for and runs.
func TestRedTeamPerf_NoPasskeyPromptForHiddenTool(t *testing.T) {
	for _, pinsOff := range []bool{false, true} {
		_, srv := newApprovalServer(t, nil)
		g := mustGuard(t, mustPolicy(t, approvalPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true},
			Pins: &gatehouse.PinOptions{Off: pinsOff}})
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		var runs atomic.Int32
		for _, name := range []string{"delete_file", "wipe"} {
			tool := &mcp.Tool{Name: name}
			if err := srv.Require(tool, approval.ToolPolicy{}); err != nil {
				t.Fatal(err)
			}
			mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
			})
		}
		hideFromListing(s, "delete_file") // listed to no one, still dispatched
		g.Install(s)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		ac, cs, auth := approvalClient(t, ct)
		ctx := context.Background()
		if _, err := ac.Enroll(ctx, cs); err != nil {
			t.Fatal(err)
		}
		if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "delete_file", Arguments: map[string]any{"path": "a"}}); err == nil {
			t.Errorf("pins off %v: the hidden tool's call was not refused", pinsOff)
		}
		_, cerr := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](ctx, cs, approval.MethodChallengeCreate,
			&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: "delete_file", Arguments: json.RawMessage(`{"path":"a"}`)}})
		if cerr == nil {
			t.Errorf("pins off %v: a challenge was issued for the hidden tool (the user would be asked)", pinsOff)
		}
		if n := len(auth.Prompts()); n != 0 || runs.Load() != 0 {
			t.Errorf("pins off %v: the user was prompted %d times for the hidden tool (ran %d)", pinsOff, n, runs.Load())
		}
		if _, err := ac.CallTool(ctx, cs, &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{}}); err != nil {
			t.Errorf("pins off %v: the listed tool: %v", pinsOff, err)
		}
		if n := len(auth.Prompts()); n != 1 || runs.Load() != 1 {
			t.Errorf("pins off %v: the listed tool: prompted %d, ran %d; want 1 and 1", pinsOff, n, runs.Load())
		}
		ss.Close()
	}
}

// A call that spells a listed tool's name another way (case, an
// invisible character, a fullwidth letter) names no tool: it is refused
// as the agent's mistake, -32602 naming the server's tool (the dispatch
// stage's answer, as before unlisted tools were refused at the policy
// stage), not as the server's failure (-32603) or a pinned tool's drift
// (-32013), which do not count against the agent. Near miss: the exact
// name runs.
func TestRedTeamPerf_OtherSpellingIsAgentsMistake(t *testing.T) {
	const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: spelling}
spec:
  allowed_tools: [wipe_disk]
`
	for _, pinsOff := range []bool{false, true} {
		g := mustGuard(t, mustPolicy(t, src), &gatehouse.Options{Pins: &gatehouse.PinOptions{Off: pinsOff}})
		ct := serve(t, g, func(s *mcp.Server) {
			mcp.AddTool(s, &mcp.Tool{Name: "wipe_disk", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
			})
		})
		c := dialRaw(t, ct, "2025-06-18")
		if res := c.callTool(1, "wipe_disk", map[string]any{}); resultText(res) != "ran" {
			t.Fatalf("pins off %v: the exact name: %v", pinsOff, res)
		}
		for i, name := range []string{"WIPE_DISK", "wipe_disk\u200b", "Wipe_Disk", "wipe_disk "} {
			e := rpcErr(c.callTool(2+i, name, map[string]any{}))
			if e == nil {
				t.Errorf("pins off %v: %q was not refused", pinsOff, name)
				continue
			}
			if fmt.Sprint(e["code"]) != "-32602" || !strings.Contains(toJSON(e["data"]), `the server's tool is \"wipe_disk\"`) {
				t.Errorf("pins off %v: %q: %v, want -32602 naming the server's tool", pinsOff, name, e)
			}
		}
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
