package approvalmcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// Params and results of the three methods, as go-sdk custom-method types.
// The approval wire types are embedded, so the JSON is exactly SEP-2672's.
type (
	// EnrollBeginParams: approval/enroll/begin takes no parameters (§4.4.1).
	EnrollBeginParams struct{ mcp.ParamsBase }
	// EnrollBeginResult carries the creation options.
	EnrollBeginResult struct {
		mcp.ResultBase
		approval.EnrollBeginResult
	}
	// EnrollFinishParams carry the registration response.
	EnrollFinishParams struct {
		mcp.ParamsBase
		approval.EnrollFinishParams
	}
	// EnrollFinishResult confirms the enrollment.
	EnrollFinishResult struct {
		mcp.ResultBase
		approval.EnrollFinishResult
	}
	// ChallengeParams name the tool and the proposed arguments.
	ChallengeParams struct {
		mcp.ParamsBase
		approval.ChallengeParams
	}
	// ChallengeResult is the challenge envelope.
	ChallengeResult struct {
		mcp.ResultBase
		approval.ChallengeResult
	}
)

// Register adds approval/enroll/begin, approval/enroll/finish and
// approval/challenge/create to srv as custom methods. Declare the
// capability too ([AddCapability]). A server without Register answers
// these methods with -32601, as SEP-2672 §4.4 requires when approval is
// not configured.
func (s *Server) Register(srv *mcp.Server) error {
	if err := mcp.AddReceivingCustomMethod(srv, approval.MethodEnrollBegin, s.enrollBegin); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(srv, approval.MethodEnrollFinish, s.enrollFinish); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(srv, approval.MethodChallengeCreate, s.challengeCreate)
}

func (s *Server) enrollBegin(ctx context.Context, _ *mcp.ServerSession, _ *EnrollBeginParams) (*EnrollBeginResult, error) {
	u, err := s.user(ctx)
	if err != nil {
		return nil, RPCError(err)
	}
	if err := s.mayEnroll(ctx, u); err != nil {
		return nil, RPCError(err)
	}
	res, err := s.gate.BeginEnrollment(ctx, u)
	if err != nil {
		return nil, RPCError(err)
	}
	return &EnrollBeginResult{EnrollBeginResult: *res}, nil
}

func (s *Server) enrollFinish(ctx context.Context, _ *mcp.ServerSession, p *EnrollFinishParams) (*EnrollFinishResult, error) {
	if p == nil || len(p.Response) == 0 {
		return nil, RPCError(fmt.Errorf("%w: approval/enroll/finish needs params.response", errInvalidParams))
	}
	u, err := s.user(ctx)
	if err != nil {
		return nil, RPCError(err)
	}
	if err := s.mayEnroll(ctx, u); err != nil {
		return nil, RPCError(err)
	}
	finish := s.gate.FinishEnrollment
	if s.enroll == EnrollFirstOnly {
		// Checked again atomically with the write: two finishes racing for a
		// user without credentials (one of them a compromised client's) land
		// one credential at most.
		finish = s.gate.FinishFirstEnrollment
	}
	res, err := finish(ctx, u, p.Response)
	if errors.Is(err, approval.ErrHasCredentials) {
		err = &approval.Error{Reason: ReasonEnrollmentNotPermitted, Detail: "the user has a credential enrolled; more are enrolled out of band"}
	}
	if err != nil {
		return nil, RPCError(err)
	}
	return &EnrollFinishResult{EnrollFinishResult: *res}, nil
}

func (s *Server) challengeCreate(ctx context.Context, _ *mcp.ServerSession, p *ChallengeParams) (*ChallengeResult, error) {
	if p == nil || p.ToolName == "" {
		return nil, RPCError(fmt.Errorf("%w: approval/challenge/create needs params.toolName", errInvalidParams))
	}
	u, err := s.user(ctx)
	if err != nil {
		return nil, RPCError(err)
	}
	res, err := s.gate.CreateChallenge(ctx, u, p.ToolName, p.Arguments)
	if err != nil {
		return nil, RPCError(err)
	}
	return &ChallengeResult{ChallengeResult: *res}, nil
}

// mayEnroll applies the EnrollmentPolicy to u; it runs at begin and again at
// finish, so a credential enrolled between the two stops the second.
func (s *Server) mayEnroll(ctx context.Context, u approval.User) error {
	switch s.enroll {
	case EnrollOpen:
		return nil
	case EnrollFirstOnly:
		creds, err := s.gate.Credentials(ctx, u)
		if err != nil {
			return err
		}
		if len(creds) == 0 {
			return nil
		}
		return &approval.Error{Reason: ReasonEnrollmentNotPermitted, Detail: "the user has a credential enrolled; more are enrolled out of band"}
	}
	return &approval.Error{Reason: ReasonEnrollmentNotPermitted, Detail: "enrollment over MCP is disabled; credentials are enrolled out of band"}
}
