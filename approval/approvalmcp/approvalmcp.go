package approvalmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// Options configure a [Server]. nil means defaults.
type Options struct {
	// User returns the user a request acts for (default: the user stored
	// in ctx by [WithUser]). An error refuses the request.
	User func(ctx context.Context) (approval.User, error)
	// Enrollment says who may enroll passkeys through approval/enroll/*
	// (default [EnrollFirstOnly]).
	Enrollment EnrollmentPolicy
}

// EnrollmentPolicy says when approval/enroll/begin and approval/enroll/finish
// may add a credential. It exists because the MCP client is the party the
// approval guards against: a client that may enroll for a user can enroll a
// software passkey of its own and then approve its own calls. Enrollment
// through the Gate's Go API ([approval.Gate.BeginEnrollment] and
// [approval.Gate.FinishEnrollment], for example behind a page the server
// hosts for its users) is not affected.
type EnrollmentPolicy int

const (
	// EnrollFirstOnly (the default) lets a user enroll over MCP only while
	// no credential is enrolled for them: trust on first use. Once the user
	// enrolled a passkey, a client cannot add its own; further credentials
	// are enrolled out of band. The check is made again at finish,
	// atomically with the write ([approval.Gate.FinishFirstEnrollment]), so
	// of two enrollments finished at the same moment one at most lands. The
	// first enrollment is only as trustworthy as the client that runs it:
	// enroll the first passkey out of band too where that matters
	// ([EnrollOutOfBand]).
	EnrollFirstOnly EnrollmentPolicy = iota
	// EnrollOutOfBand refuses both enrollment methods: credentials are
	// enrolled only through the Gate's Go API.
	EnrollOutOfBand
	// EnrollOpen lets any client enroll any number of credentials for its
	// user over MCP, as SEP-2672 describes. Choose it only when every client
	// that can act for a user is trusted not to approve its own calls.
	EnrollOpen
)

// ReasonEnrollmentNotPermitted is the data.reason of a -32001 error from
// approval/enroll/begin or approval/enroll/finish refused by the
// [EnrollmentPolicy]. It is gatehouse's one reason beyond SEP-2672 §4.10.
const ReasonEnrollmentNotPermitted approval.Reason = "enrollment_not_permitted"

// Server serves a Gate's methods and verifies evidence over MCP.
type Server struct {
	gate   *approval.Gate
	user   func(ctx context.Context) (approval.User, error)
	enroll EnrollmentPolicy
}

// New returns a Server for g. opts may be nil.
func New(g *approval.Gate, opts *Options) (*Server, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: approvalmcp.New: nil gate", approval.ErrInvalidOptions)
	}
	s := &Server{gate: g, user: userFromContext}
	if opts != nil {
		if opts.User != nil {
			s.user = opts.User
		}
		if opts.Enrollment < EnrollFirstOnly || opts.Enrollment > EnrollOpen {
			return nil, fmt.Errorf("%w: approvalmcp.New: unknown EnrollmentPolicy %d", approval.ErrInvalidOptions, opts.Enrollment)
		}
		s.enroll = opts.Enrollment
	}
	return s, nil
}

// Gate returns the Gate the Server serves.
func (s *Server) Gate() *approval.Gate { return s.gate }

type userKey struct{}

// WithUser returns ctx carrying u, the user on whose behalf the request
// runs; middleware sets it from the authenticated agent identity.
func WithUser(ctx context.Context, u approval.User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFromContext returns the user stored by [WithUser].
func UserFromContext(ctx context.Context) (approval.User, bool) {
	u, ok := ctx.Value(userKey{}).(approval.User)
	return u, ok && len(u.Handle) > 0
}

// ErrNoUser: the request carries no user (no [WithUser] upstream).
var ErrNoUser = errors.New("approvalmcp: no authenticated user for this request")

func userFromContext(ctx context.Context) (approval.User, error) {
	u, ok := UserFromContext(ctx)
	if !ok {
		return approval.User{}, ErrNoUser
	}
	return u, nil
}

// AddCapability declares extensions.verifiedApproval = {} (SEP-2672 §4.3).
// Set it on ServerOptions.Capabilities: go-sdk sends those capabilities in
// both initialize and server/discover results.
func AddCapability(caps *mcp.ServerCapabilities) {
	caps.AddExtension(approval.CapabilityKey, nil)
}

// annotate sets the §4.2 annotation on t._meta, keeping other _meta keys.
// It is not exported: a tool that advertised approval without the Gate
// requiring it would make clients run the ceremony for a tool that runs
// without evidence; [Server.Require] does both.
func annotate(t *mcp.Tool, class approval.Class) {
	if t.Meta == nil {
		t.Meta = mcp.Meta{}
	}
	m := approval.Annotation(class)
	t.Meta[approval.MetaKey] = map[string]any{"required": m.Required, "authenticatorClass": string(m.AuthenticatorClass)}
}

// ToolMeta reads the §4.2 annotation of t; ok is false for a tool that
// does not require approval.
func ToolMeta(t *mcp.Tool) (approval.ToolMeta, bool) {
	if t == nil || t.Meta == nil {
		return approval.ToolMeta{}, false
	}
	v, ok := t.Meta[approval.MetaKey]
	if !ok {
		return approval.ToolMeta{}, false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return approval.ToolMeta{}, false
	}
	return approval.ParseToolMeta(raw)
}

// Require annotates t and registers its policy with the Gate, so the
// listing and the enforcement cannot disagree.
func (s *Server) Require(t *mcp.Tool, p approval.ToolPolicy) error {
	if err := s.gate.Require(t.Name, p); err != nil {
		return err
	}
	annotate(t, p.Class)
	return nil
}

// Evidence returns params._meta[MetaKey] as raw JSON, or nil when absent.
func Evidence(p *mcp.CallToolParamsRaw) json.RawMessage {
	if p == nil || p.Meta == nil {
		return nil
	}
	v, ok := p.Meta[approval.MetaKey]
	if !ok || v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return raw
}

// VerifyCall verifies the evidence of a tools/call (SEP-2672 §4.8) for the
// request's user. The tool may run only when the error is nil; send a
// non-nil error with [RPCError]. A call to a tool the Gate does not
// require approval for is refused (tool_not_approved_required): check
// Gate().Requires first.
func (s *Server) VerifyCall(ctx context.Context, req *mcp.CallToolRequest) (*approval.Approval, error) {
	if req == nil || req.Params == nil {
		return nil, &approval.Error{Reason: approval.ReasonMissingEvidence, Detail: "tools/call without params"}
	}
	u, err := s.user(ctx)
	if err != nil {
		return nil, err
	}
	return s.gate.Verify(ctx, u, approval.Call{Tool: req.Params.Name, Arguments: req.Params.Arguments, Evidence: Evidence(req.Params)})
}

// messages are the fixed -32001 messages, one per reason.
var messages = map[approval.Reason]string{
	approval.ReasonMissingEvidence:            "Verified approval is required for this tool",
	approval.ReasonUnsupportedMethod:          "Unsupported approval method",
	approval.ReasonChallengeUnknown:           "Unknown approval challenge",
	approval.ReasonChallengeConsumed:          "Approval challenge already used",
	approval.ReasonChallengeExpired:           "Approval challenge expired",
	approval.ReasonChallengeWrongTool:         "Approval challenge was issued for another tool",
	approval.ReasonUnknownCredential:          "Approval credential is not enrolled",
	approval.ReasonAuthenticatorClassMismatch: "Approval credential does not satisfy the tool's authenticator class",
	approval.ReasonSignatureFailed:            "Approval signature verification failed",
	approval.ReasonCounterRegression:          "Approval signature counter did not advance",
	approval.ReasonArgumentHashMismatch:       "Approval evidence does not match the arguments of this call",
	approval.ReasonToolNotApprovalRequired:    "Tool does not require verified approval",
	approval.ReasonNoEligibleCredential:       "No enrolled credential satisfies the tool's authenticator class",
	approval.ReasonCredentialAlreadyEnrolled:  "Credential is already enrolled",
	approval.ReasonNoPendingEnrollment:        "No pending enrollment",
	approval.ReasonVerificationFailed:         "Registration verification failed",
	ReasonEnrollmentNotPermitted:              "Enrollment over MCP is not permitted for this user; enroll out of band",
}

// Message returns the fixed -32001 message of reason r.
func Message(r approval.Reason) string {
	if m, ok := messages[r]; ok {
		return m
	}
	return "Approval rejected"
}

// RPCError maps an error of this package or of package approval to the
// *jsonrpc.Error go-sdk sends unchanged: an [*approval.Error] becomes -32001
// with data {"reason": ...} (SEP-2672 §4.10); invalid arguments or params
// -32602; a missing user -32600; a full store (too many pending challenges
// for the user, or too many credentials) -32603 saying so, so a client can
// back off; anything else -32603 "Internal error" without detail. nil stays
// nil.
func RPCError(err error) error {
	if err == nil {
		return nil
	}
	var ae *approval.Error
	switch {
	case errors.As(err, &ae):
		data, _ := json.Marshal(map[string]string{"reason": string(ae.Reason)})
		return &jsonrpc.Error{Code: approval.ErrorCode, Message: Message(ae.Reason), Data: data}
	case errors.Is(err, approval.ErrInvalidArguments):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: arguments cannot be canonicalized (RFC 8785)"}
	case errors.Is(err, errInvalidParams), errors.Is(err, approval.ErrInvalidUser):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params"}
	case errors.Is(err, ErrNoUser):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "No authenticated user"}
	case errors.Is(err, approval.ErrCapacity):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Approval store full: too many pending challenges or enrolled credentials; use or let expire pending challenges, then retry"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error"}
}

var errInvalidParams = errors.New("approvalmcp: invalid params")
