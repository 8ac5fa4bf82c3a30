package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/scope"
)

// TestNoChallengeForAScopeRefusedCall: no passkey challenge is issued for a
// call the token's scopes refuse (the user would approve a call that can
// never run); a call the scopes allow gets one.
func TestNoChallengeForAScopeRefusedCall(t *testing.T) {
	_, srv := newApprovalServer(t, nil)
	sp, err := scope.New(scope.Config{Tools: []scope.Tool{{Name: "delete_file", When: []scope.When{{
		Args: map[string][]string{"path": {"/etc/*"}}, Requirement: scope.Requirement{All: []string{"files:system"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, approvalPolicy), &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: srv, ForUnauthenticated: true}, Scopes: &gatehouse.ScopeOptions{Policy: sp}})
	ct := serve(t, g, func(s *mcp.Server) {
		tool := &mcp.Tool{Name: "delete_file"}
		if err := srv.Require(tool, approval.ToolPolicy{}); err != nil {
			t.Fatal(err)
		}
		mcp.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	})
	ac, cs, _ := approvalClient(t, ct)
	ctx := context.Background()
	if _, err := ac.Enroll(ctx, cs); err != nil {
		t.Fatal(err)
	}
	challenge := func(args string) error {
		_, err := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](ctx, cs, approval.MethodChallengeCreate,
			&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: "delete_file", Arguments: json.RawMessage(args)}})
		return err
	}
	err = challenge(`{"path":"/ETC/passwd"}`)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || !strings.Contains(string(we.Data), "files:system") {
		t.Errorf("challenge for a scope-refused call: %v", err)
	}
	if err := challenge(`{"path":"notes.txt"}`); err != nil {
		t.Errorf("challenge for an allowed call: %v", err)
	}
}
