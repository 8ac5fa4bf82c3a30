package elicitation

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// Name is the channel's name in proofs (approver.channel) and events.
const Name = "mcp-elicitation"

// Channel is a consent.Channel that asks the user at the other end of an
// MCP session, through elicitation/create (form mode, one yes/no field).
//
// Session is the session to ask. nil means the session of the tools/call
// being guarded, which the root package puts in the context it hands the
// Asker ([WithSession], [WithRequest]).
//
// Answers are client-attested (see the package doc): the reply carries
// consent.AttestedClient unless ClientIsHuman is set, an explicit statement
// by the server author that this client shows every question to a human
// the agent cannot impersonate.
//
// go-sdk can elicit from inside a request only on sessions before protocol
// 2026-07-28; on newer sessions Ask fails and the call is denied (fail
// closed). For those, register the tool with the root package's AddTool,
// which asks through the multi-round-trip result instead. The client must
// declare the elicitation capability.
//
// A Channel is safe for concurrent use.
type Channel struct {
	Session       *mcp.ServerSession
	ClientIsHuman bool
}

var _ consent.Channel = Channel{}

// Name returns "mcp-elicitation".
func (Channel) Name() string { return Name }

var errNoSession = errors.New("elicitation: the channel has no MCP session: use it as the Asker of a Guard, or set Session")

type sessionKey struct{}

// WithSession returns ctx carrying ss for a Channel without a Session.
func WithSession(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, ss)
}

// WithRequest returns ctx carrying the server session of req, if it has
// one, for a Channel without a Session.
func WithRequest(ctx context.Context, req mcp.Request) context.Context {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return WithSession(ctx, ss)
}

// Ask shows consent.Summary(req) and returns the client's answer.
func (c Channel) Ask(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
	ss := c.Session
	if ss == nil {
		ss, _ = ctx.Value(sessionKey{}).(*mcp.ServerSession)
	}
	if ss == nil {
		return consent.Reply{}, errNoSession
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Mode:    "form",
		Message: "Approve this action?\n" + consent.Summary(req),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"approve": map[string]any{"type": "boolean", "title": "Approve", "description": "Allow this one action (request " + req.ID + ")"},
			},
			"required": []string{"approve"},
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return consent.Reply{}, fmt.Errorf("elicitation: %w", ctx.Err())
		}
		return consent.Reply{}, fmt.Errorf("elicitation: failed: %w", err)
	}
	r := consent.Reply{Decision: consent.Denied, Approver: "mcp-client", Attestation: consent.AttestedClient}
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		r.Approver = "mcp-client:" + ip.ClientInfo.Name
	}
	if c.ClientIsHuman {
		r.Attestation = consent.AttestedHuman
	}
	if res.Action == "accept" && res.Content["approve"] == true {
		r.Decision = consent.Approved
	}
	// decline, cancel, or an accept without a yes: not an approval.
	return r, nil
}
