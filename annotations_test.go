package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
)

const annotationPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [listed_destructive]
  protected_paths: [~/.ssh]
  tool_rules:
    - tool: blocked_readonly
      action: block
    - tool: asked_readonly
      action: ask
`

// TestAnnotationDefaults is the table of Options.AnnotationDefaults, through
// a go-sdk client and server: a tool the policy does not mention runs when
// its server declares readOnlyHint: true and is asked otherwise
// (destructive, unannotated, or annotated without readOnlyHint); tools the
// policy mentions follow the policy; protected paths stay refused; what
// the client sends never counts as an annotation. Without the option the
// policy alone decides.
func TestAnnotationDefaults(t *testing.T) {
	yes, no := true, false
	tools := map[string]*mcp.ToolAnnotations{
		"readonly":           {ReadOnlyHint: true},
		"readonly_destruct":  {ReadOnlyHint: true, DestructiveHint: &yes}, // destructiveHint means nothing when read-only
		"destructive":        {DestructiveHint: &yes},
		"not_destructive":    {DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no},
		"unannotated":        nil,
		"listed_destructive": {DestructiveHint: &yes},
		"blocked_readonly":   {ReadOnlyHint: true},
		"asked_readonly":     {ReadOnlyHint: true},
	}
	type want struct {
		ran, asked bool
		code       int64 // the JSON-RPC error, 0 when none
	}
	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
		meta map[string]any // sent by the client
		on   want           // with AnnotationDefaults
		off  want           // without
	}{
		{"read-only", "readonly", nil, nil, want{ran: true}, want{code: -32001}},
		{"read-only, destructiveHint ignored", "readonly_destruct", nil, nil, want{ran: true}, want{code: -32001}},
		{"destructive", "destructive", nil, nil, want{ran: true, asked: true}, want{code: -32001}},
		{"not destructive but not read-only", "not_destructive", nil, nil, want{ran: true, asked: true}, want{code: -32001}},
		{"unannotated", "unannotated", nil, nil, want{ran: true, asked: true}, want{code: -32001}},
		{"listed (policy allows)", "listed_destructive", nil, nil, want{ran: true}, want{ran: true}},
		{"blocked (policy blocks a read-only tool)", "blocked_readonly", nil, nil, want{code: -32001}, want{code: -32001}},
		{"asked (policy asks for a read-only tool)", "asked_readonly", nil, nil, want{ran: true, asked: true}, want{ran: true, asked: true}},
		{"read-only, protected path", "readonly", map[string]any{"path": "~/.ssh/id_rsa"}, nil, want{code: -32007}, want{code: -32007}},
		{"unannotated, client claims read-only", "unannotated", nil, map[string]any{"annotations": map[string]any{"readOnlyHint": true}, "readOnlyHint": true}, want{ran: true, asked: true}, want{code: -32001}},
		{"unknown tool (the policy decides)", "nope", nil, nil, want{code: -32001}, want{code: -32001}},
	} {
		for _, mode := range []bool{true, false} {
			w := tc.off
			if mode {
				w = tc.on
			}
			var mu sync.Mutex
			var asked []string
			asker := gatehouse.AskerFunc(func(_ context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, r.Tool)
				return gatehouse.Answer{Approved: true}, nil
			})
			g := mustGuard(t, mustPolicy(t, annotationPolicy), &gatehouse.Options{AnnotationDefaults: mode, Ask: &gatehouse.AskOptions{Asker: asker}})
			ran := map[string]int{}
			ct := serve(t, g, func(s *mcp.Server) {
				for name, a := range tools {
					s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: a}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						mu.Lock()
						defer mu.Unlock()
						ran[req.Params.Name]++
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
					})
				}
			})
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args, Meta: tc.meta})
			cs.Close()
			var code int64
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				code = je.Code
			} else if err != nil {
				t.Fatalf("%s (mode %v): %v", tc.name, mode, err)
			}
			got := want{ran: ran[tc.tool] == 1, asked: len(asked) == 1, code: code}
			if got != w {
				t.Errorf("%s with AnnotationDefaults=%v: got %+v, want %+v (err %v)", tc.name, mode, got, w, err)
			}
		}
	}
}

// TestAnnotationDefaultsToolsList: the mode lists the tools it may allow
// or ask for (every tool the policy does not mention), and still hides
// the tools the policy blocks.
func TestAnnotationDefaultsToolsList(t *testing.T) {
	for _, mode := range []bool{true, false} {
		g := mustGuard(t, mustPolicy(t, annotationPolicy), &gatehouse.Options{AnnotationDefaults: mode})
		ct := serve(t, g, func(s *mcp.Server) {
			for _, name := range []string{"readonly", "unannotated", "listed_destructive", "blocked_readonly"} {
				s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			}
		})
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.ListTools(context.Background(), nil)
		cs.Close()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		want := "listed_destructive"
		if mode {
			want = "listed_destructive,readonly,unannotated"
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("AnnotationDefaults=%v lists %s, want %s", mode, got, want)
		}
	}
}

// TestAnnotationDefaultsPasskey: under AnnotationDefaults, a tool the
// policy does not mention that requires a passkey can be approved (the
// challenge is issued, as for any call the guard would ask), and runs with
// the passkey; without the mode the challenge is refused.
func TestAnnotationDefaultsPasskey(t *testing.T) {
	for _, mode := range []bool{true, false} {
		_, srv := newApprovalServer(t, nil)
		g := mustGuard(t, mustPolicy(t, annotationPolicy), &gatehouse.Options{AnnotationDefaults: mode, Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true}})
		var runs int
		ct := serve(t, g, func(s *mcp.Server) {
			tl := &mcp.Tool{Name: "wipe_disk", InputSchema: json.RawMessage(`{"type":"object"}`)}
			if err := srv.Require(tl, approval.ToolPolicy{}); err != nil {
				t.Fatal(err)
			}
			s.AddTool(tl, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs++
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil
			})
		})
		ac, cs, _ := approvalClient(t, ct)
		if _, err := ac.Enroll(context.Background(), cs); err != nil {
			t.Fatal(err)
		}
		_, err := ac.CallTool(context.Background(), cs, &mcp.CallToolParams{Name: "wipe_disk", Arguments: map[string]any{}})
		if (err == nil) != mode || (runs == 1) != mode {
			t.Errorf("AnnotationDefaults=%v: err=%v runs=%d", mode, err, runs)
		}
	}
}

// TestAnnotationDefaultsACP: with ACP rules, a tool no rule matches by
// name or category is decided by its annotations instead of
// default_action; a tool a rule matches follows the rule.
func TestAnnotationDefaultsACP(t *testing.T) {
	const rules = `version: "1"
default_action: deny
rules:
  - match: {tool: "deploy_*"}
    action: deny
`
	yes := true
	for _, tc := range []struct {
		tool string
		a    *mcp.ToolAnnotations
		ran  bool
	}{
		{"lookup", &mcp.ToolAnnotations{ReadOnlyHint: true}, true},
		{"deploy_web", &mcp.ToolAnnotations{ReadOnlyHint: true}, false}, // a rule denies it
		{"restart", &mcp.ToolAnnotations{DestructiveHint: &yes}, false}, // asked; no asker: denied
	} {
		g := mustGuard(t, mustPolicy(t, rules), &gatehouse.Options{AnnotationDefaults: true})
		runs := 0
		ct := serve(t, g, func(s *mcp.Server) {
			s.AddTool(&mcp.Tool{Name: tc.tool, InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: tc.a}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs++
				return &mcp.CallToolResult{}, nil
			})
		})
		res := dialRaw(t, ct, "2025-06-18").callTool(1, tc.tool, map[string]any{})
		if (runs == 1) != tc.ran || (rpcErr(res) == nil) != tc.ran {
			t.Errorf("%s: runs=%d %v", tc.tool, runs, res)
		}
	}
}
