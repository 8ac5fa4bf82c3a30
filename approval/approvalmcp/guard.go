package approvalmcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// The methods in this file make *Server the gatehouse.Approver of a Guard
// (gatehouse.Options.Approval.Server): the root package defines that
// interface in standard-library and go-sdk types only, so a program that
// imports gatehouse without passkeys links neither this package nor
// go-webauthn. The root package's tests hold *Server to the interface.

// Requires reports whether calls to tool need verified approval
// ([approval.Gate.Requires]).
func (s *Server) Requires(tool string) bool { return s.gate.Requires(tool) }

// WithUserID returns ctx acting for the approval user whose stable id is
// userID ([approval.NewUser]): what [WithUser] does, for callers that do not
// import package approval.
func (s *Server) WithUserID(ctx context.Context, userID string) context.Context {
	return WithUser(ctx, approval.NewUser(userID))
}

// Advertise declares extensions.verifiedApproval in an initialize or
// server/discover result (the package function [Advertise]).
func (s *Server) Advertise(res mcp.Result) { Advertise(res) }

// ChallengedCall returns the tool name and arguments an
// approval/challenge/create request asks a challenge for; ok is false for
// any other request or malformed params (which the method answers itself).
func (s *Server) ChallengedCall(req mcp.Request) (tool string, args json.RawMessage, ok bool) {
	if req == nil {
		return "", nil, false
	}
	p, ok := req.GetParams().(*ChallengeParams)
	if !ok || p == nil {
		return "", nil, false
	}
	return p.ToolName, p.Arguments, true
}

// CheckCall verifies the passkey evidence of a tools/call ([Server.VerifyCall])
// and returns what a guard needs to deny: nil when the call may run;
// otherwise err is the error to send the client ([RPCError]) and reason the
// SEP-2672 §4.10 reason when the evidence was refused, "" when it could not
// be checked (a store failure, a missing user).
func (s *Server) CheckCall(ctx context.Context, req *mcp.CallToolRequest) (reason string, err error) {
	_, err = s.VerifyCall(ctx, req)
	if err == nil {
		return "", nil
	}
	var ae *approval.Error
	if errors.As(err, &ae) {
		reason = string(ae.Reason)
	}
	return reason, RPCError(err)
}

// WithDefinition returns ctx binding def, the digest of the called tool's
// definition, to the challenge created or verified with it
// (approval.WithDefinition): gatehouse's pinning voids a challenge issued
// for a definition that changed since.
func (s *Server) WithDefinition(ctx context.Context, def string) context.Context {
	return approval.WithDefinition(ctx, def)
}
