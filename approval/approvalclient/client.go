package approvalclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
)

// Authenticator performs the WebAuthn ceremonies, like
// navigator.credentials.create and get in a browser.
type Authenticator interface {
	// Create answers PublicKeyCredentialCreationOptionsJSON with a
	// RegistrationResponseJSON.
	Create(ctx context.Context, creationOptions json.RawMessage) (json.RawMessage, error)
	// Get shows displayText to the user verbatim, asks for the gesture,
	// and answers PublicKeyCredentialRequestOptionsJSON with an
	// AuthenticationResponseJSON, unmodified.
	Get(ctx context.Context, displayText string, requestOptions json.RawMessage) (json.RawMessage, error)
}

// ErrNoCapability: the tool is annotated but the server did not declare
// extensions.verifiedApproval (SEP-2672 §4.3: clients MAY refuse).
var ErrNoCapability = errors.New("approvalclient: server lists an approval-required tool but did not declare the verifiedApproval capability")

// Options configure a Client. nil means defaults.
type Options struct {
	// MaxSessions bounds the per-session tool caches (default 64); when
	// exceeded, all caches are dropped and refilled on demand.
	MaxSessions int
}

// Bounds of one tools/list walk, against a server that pages forever.
const (
	maxListPages = 1000
	maxListTools = 10_000
)

// Client adds verified approval to tools/call.
type Client struct {
	auth        Authenticator
	maxSessions int

	mu    sync.Mutex
	tools map[*mcp.ClientSession]map[string]*approval.ToolMeta // nil value: not annotated
}

// New registers the three approval methods on c and returns a Client using
// auth. opts may be nil.
func New(c *mcp.Client, auth Authenticator, opts *Options) (*Client, error) {
	if c == nil || auth == nil {
		return nil, fmt.Errorf("%w: approvalclient.New needs a client and an authenticator", approval.ErrInvalidOptions)
	}
	if err := mcp.AddSendingCustomMethod[*approvalmcp.EnrollBeginParams, *approvalmcp.EnrollBeginResult](c, approval.MethodEnrollBegin); err != nil {
		return nil, err
	}
	if err := mcp.AddSendingCustomMethod[*approvalmcp.EnrollFinishParams, *approvalmcp.EnrollFinishResult](c, approval.MethodEnrollFinish); err != nil {
		return nil, err
	}
	if err := mcp.AddSendingCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](c, approval.MethodChallengeCreate); err != nil {
		return nil, err
	}
	cl := &Client{auth: auth, maxSessions: 64, tools: map[*mcp.ClientSession]map[string]*approval.ToolMeta{}}
	if opts != nil && opts.MaxSessions > 0 {
		cl.maxSessions = opts.MaxSessions
	}
	return cl, nil
}

// Enroll registers a new credential with the server through the
// Authenticator (approval/enroll/begin, create, approval/enroll/finish).
func (c *Client) Enroll(ctx context.Context, cs *mcp.ClientSession) (*approval.EnrollFinishResult, error) {
	begin, err := mcp.CallCustomMethod[*approvalmcp.EnrollBeginParams, *approvalmcp.EnrollBeginResult](ctx, cs, approval.MethodEnrollBegin, &approvalmcp.EnrollBeginParams{})
	if err != nil {
		return nil, Wrap(err)
	}
	resp, err := c.auth.Create(ctx, begin.Options)
	if err != nil {
		return nil, fmt.Errorf("approvalclient: authenticator create: %w", err)
	}
	fin, err := mcp.CallCustomMethod[*approvalmcp.EnrollFinishParams, *approvalmcp.EnrollFinishResult](ctx, cs, approval.MethodEnrollFinish,
		&approvalmcp.EnrollFinishParams{EnrollFinishParams: approval.EnrollFinishParams{Response: resp}})
	if err != nil {
		return nil, Wrap(err)
	}
	return &fin.EnrollFinishResult, nil
}

// CallTool calls a tool, running the approval ceremony first when the
// tool's listing carries the annotation. params.Meta is kept; the evidence
// is added under approval.MetaKey. Approval rejections come back as
// [*approval.Error] (from -32001 responses).
func (c *Client) CallTool(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	meta, err := c.annotation(ctx, cs, params.Name, false)
	if err != nil {
		return nil, err
	}
	if meta == nil {
		res, err := cs.CallTool(ctx, params)
		if !errors.Is(Wrap(err), approval.ErrMissingEvidence) {
			return res, Wrap(err)
		}
		// The listing changed since it was cached: refresh once.
		callErr := err
		if meta, err = c.annotation(ctx, cs, params.Name, true); err != nil || meta == nil {
			return res, errors.Join(Wrap(callErr), err)
		}
	}
	return c.callApproved(ctx, cs, params)
}

func (c *Client) callApproved(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if !declaresCapability(cs) {
		return nil, ErrNoCapability
	}
	args, err := marshalArgs(params.Arguments)
	if err != nil {
		return nil, err
	}
	ch, err := mcp.CallCustomMethod[*approvalmcp.ChallengeParams, *approvalmcp.ChallengeResult](ctx, cs, approval.MethodChallengeCreate,
		&approvalmcp.ChallengeParams{ChallengeParams: approval.ChallengeParams{ToolName: params.Name, Arguments: args}})
	if err != nil {
		return nil, Wrap(err)
	}
	resp, err := c.auth.Get(ctx, ch.DisplayText, ch.RequestOptions)
	if err != nil {
		return nil, fmt.Errorf("approvalclient: authenticator get: %w", err)
	}
	call := *params
	call.Arguments = args // the very bytes the challenge was computed over
	call.Meta = mcp.Meta{}
	for k, v := range params.Meta {
		call.Meta[k] = v
	}
	call.Meta[approval.MetaKey] = approval.Evidence{Method: approval.EvidenceMethodWebAuthn, ChallengeID: ch.ChallengeID, Response: resp}
	res, err := cs.CallTool(ctx, &call)
	return res, Wrap(err)
}

func marshalArgs(a any) (json.RawMessage, error) {
	switch v := a.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return json.RawMessage(v), nil
	}
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("approvalclient: marshaling arguments: %w", err)
	}
	return raw, nil
}

func declaresCapability(cs *mcp.ClientSession) bool {
	ir := cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil {
		return false
	}
	_, ok := ir.Capabilities.Extensions[approval.CapabilityKey]
	return ok
}

// annotation returns the tool's annotation (nil when not annotated),
// listing the server's tools when the tool is not cached or refresh is set.
func (c *Client) annotation(ctx context.Context, cs *mcp.ClientSession, name string, refresh bool) (*approval.ToolMeta, error) {
	c.mu.Lock()
	m, ok := c.tools[cs][name]
	c.mu.Unlock()
	if ok && !refresh {
		return m, nil
	}
	fresh := map[string]*approval.ToolMeta{}
	params := &mcp.ListToolsParams{}
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("approvalclient: listing tools: the server sent more than %d pages", maxListPages)
		}
		res, err := cs.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("approvalclient: listing tools: %w", err)
		}
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			if tm, ok := approvalmcp.ToolMeta(t); ok {
				fresh[t.Name] = &tm
			} else {
				fresh[t.Name] = nil
			}
		}
		if len(fresh) > maxListTools {
			return nil, fmt.Errorf("approvalclient: listing tools: the server lists more than %d tools", maxListTools)
		}
		if res.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	c.mu.Lock()
	if _, known := c.tools[cs]; !known && len(c.tools) >= c.maxSessions {
		c.tools = map[*mcp.ClientSession]map[string]*approval.ToolMeta{}
	}
	c.tools[cs] = fresh
	c.mu.Unlock()
	return fresh[name], nil
}

// Wrap turns a -32001 JSON-RPC error whose data.reason is an approval
// reason (SEP-2672 §4.10, or approvalmcp's enrollment_not_permitted) into
// an [*approval.Error] wrapping it; other errors are returned unchanged.
// Other -32001 errors exist: AIP policy denials ("Forbidden") share the
// code with a free-text reason, and stay what they are.
func Wrap(err error) error {
	var we *jsonrpc.Error
	if err == nil || !errors.As(err, &we) || we.Code != approval.ErrorCode {
		return err
	}
	var d struct {
		Reason approval.Reason `json:"reason"`
	}
	if json.Unmarshal(we.Data, &d) != nil || !approvalReason(d.Reason) {
		return err
	}
	return &approval.Error{Reason: d.Reason, Detail: we.Message, Err: err}
}

func approvalReason(r approval.Reason) bool {
	return r == approvalmcp.ReasonEnrollmentNotPermitted || slices.Contains(approval.Reasons, r)
}
