package gatehouse

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Approver is SEP-2672 verified approval (passkeys) as a Guard uses it.
// *approvalmcp.Server implements it; set it as Options.Approval.Server.
//
// The interface names only standard-library and go-sdk types, so a program
// that imports gatehouse and not approval/approvalmcp links no WebAuthn code
// (go-webauthn and what it pulls in); TestRootImports holds the root package
// to that.
type Approver interface {
	// Register adds the approval/* methods to s (Install calls it once).
	Register(s *mcp.Server) error
	// Advertise declares the verifiedApproval capability in an initialize
	// or server/discover result, copying what it changes.
	Advertise(res mcp.Result)
	// Requires reports whether calls to tool need passkey evidence.
	Requires(tool string) bool
	// WithUserID returns ctx acting for the approval user userID (see
	// ApprovalUserID and LocalApprovalUserID).
	WithUserID(ctx context.Context, userID string) context.Context
	// ChallengedCall returns the tool and arguments of an
	// approval/challenge/create request, ok false when it has none.
	ChallengedCall(req mcp.Request) (tool string, args json.RawMessage, ok bool)
	// CheckCall verifies the passkey evidence of a tools/call for the user
	// of ctx. nil: the call may run. Otherwise err is sent to the client as
	// it is, and reason is the SEP-2672 §4.10 reason of a refusal ("" when
	// the evidence could not be checked). req is a copy: changes to it do
	// not reach the handler.
	CheckCall(ctx context.Context, req *mcp.CallToolRequest) (reason string, err error)
	// WithDefinition returns ctx binding def, an opaque identifier of the
	// server the call reaches and the tool's definition (its ToolDigest,
	// with pinning on), to the challenge created or checked with it: a
	// challenge issued on one server, or under one definition, does not
	// verify a call on another server or under another definition.
	WithDefinition(ctx context.Context, def string) context.Context
}

// nilApprover reports whether a is nil, also a typed nil pointer in a
// non-nil interface (a *approvalmcp.Server that was never built).
func nilApprover(a Approver) bool {
	if a == nil {
		return true
	}
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}
