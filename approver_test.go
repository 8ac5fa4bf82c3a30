package gatehouse_test

import (
	"strings"
	"testing"

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
