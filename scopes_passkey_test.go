package gatehouse_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
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
	ct := serve(t, g, func(s *mcp.Server) { requirePasskeyTools(t, s, srv, nil, "delete_file") })
	cs, _ := enrolledApprovalClient(t, ct)
	ctx := context.Background()
	challenge := func(args string) error { return createChallenge(ctx, cs, "delete_file", args) }
	err = challenge(`{"path":"/ETC/passwd"}`)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || !strings.Contains(string(we.Data), "files:system") {
		t.Errorf("challenge for a scope-refused call: %v", err)
	}
	if err := challenge(`{"path":"notes.txt"}`); err != nil {
		t.Errorf("challenge for an allowed call: %v", err)
	}
}
