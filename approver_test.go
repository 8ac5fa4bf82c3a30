package gatehouse_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// approvalmcp cannot import the root package (DESIGN §1), so the check that
// its Server is an Approver lives here.
var _ gatehouse.Approver = (*approvalmcp.Server)(nil)

// TestApprovalServerRequired: Options.Approval without a server, or with a
// nil *approvalmcp.Server inside the interface, is refused at New rather
// than panicking on the first approval method.
func TestApprovalServerRequired(t *testing.T) {
	p, err := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {allowed_tools: [read_file]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var typedNil *approvalmcp.Server
	for name, a := range map[string]*gatehouse.ApprovalOptions{
		"no server":   {},
		"typed nil":   {Server: typedNil},
		"typed nil 2": {Server: typedNil, ForUnauthenticated: true},
	} {
		_, err := gatehouse.New(p, &gatehouse.Options{Approval: a})
		if err == nil || !strings.Contains(err.Error(), "Options.Approval.Server") {
			t.Errorf("%s: New gave %v, want an error naming Options.Approval.Server", name, err)
		}
	}
}

// fakeApprover is an Approver of another implementation than approvalmcp:
// it requires approval for delete_file and answers every check with
// reason and err.
type fakeApprover struct {
	reason string
	err    error
}

var _ gatehouse.Approver = fakeApprover{}

func (fakeApprover) Register(*mcp.Server) error                                   { return nil }
func (fakeApprover) Advertise(mcp.Result)                                         {}
func (fakeApprover) Requires(tool string) bool                                    { return tool == "delete_file" }
func (fakeApprover) WithDefinition(ctx context.Context, _ string) context.Context { return ctx }
func (fakeApprover) WithUserID(ctx context.Context, _ string) context.Context {
	return ctx
}
func (fakeApprover) ChallengedCall(mcp.Request) (string, json.RawMessage, bool) {
	return "", nil, false
}
func (a fakeApprover) CheckCall(context.Context, *mcp.CallToolRequest) (string, error) {
	return a.reason, a.err
}

// TestApproverVerdicts: the guard runs a tool that requires approval only
// when the Approver answers nil and no reason; a reason without an error
// (an Approver that forgot the error) still refuses, and a failure to check
// refuses without running the tool.
func TestApproverVerdicts(t *testing.T) {
	p := mustPolicy(t, approvalPolicy)
	for name, c := range map[string]struct {
		a       fakeApprover
		wantRun bool
	}{
		"approved":             {fakeApprover{}, true},
		"refused":              {fakeApprover{reason: "signature_failed", err: errors.New("refused")}, false},
		"reason without error": {fakeApprover{reason: "signature_failed"}, false},
		"could not check":      {fakeApprover{err: errors.New("store down")}, false},
	} {
		t.Run(name, func(t *testing.T) {
			runs := 0
			g := mustGuard(t, p, &gatehouse.Options{Approval: &gatehouse.ApprovalOptions{Server: c.a, ForUnauthenticated: true}})
			ct := serve(t, g, func(s *mcp.Server) {
				textTool(s, "delete_file", func(map[string]any) string { return "deleted" }, &runs)
			})
			res := dialRaw(t, ct, "2025-06-18").callTool(1, "delete_file", map[string]any{"path": "a"})
			if ran := runs == 1; ran != c.wantRun {
				t.Errorf("tool ran %d times, want run %v: %v", runs, c.wantRun, res)
			}
			if !c.wantRun && rpcErr(res) == nil {
				t.Errorf("refused call answered without an error: %v", res)
			}
		})
	}
}
