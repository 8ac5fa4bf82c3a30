package gatehouse

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// ElicitationChannel is a consent.Channel that asks the human at the other
// end of an MCP session, through elicitation/create (form mode, one yes/no
// field). With it, AskConsent gives elicited answers the same signed,
// nonce-bound proofs as the terminal, webhook and Telegram channels.
//
// Session is the session to ask. nil means the session of the tools/call
// being guarded, which the Guard puts in the context it hands the Asker.
//
// go-sdk can elicit from inside a request only on sessions before protocol
// 2026-07-28; on newer sessions Ask fails and the call is denied (fail
// closed). For those, register the tool with AddTool, which asks through
// the multi-round-trip result instead. The client must declare the
// elicitation capability.
//
// An ElicitationChannel is safe for concurrent use.
type ElicitationChannel struct {
	Session *mcp.ServerSession
}

var _ consent.Channel = ElicitationChannel{}

// Name returns "mcp-elicitation".
func (ElicitationChannel) Name() string { return "mcp-elicitation" }

var errNoSession = errors.New("gatehouse: the elicitation channel has no MCP session: use it as the Asker of a Guard, or set Session")

// Ask shows consent.Summary(req) and returns the human's answer.
func (c ElicitationChannel) Ask(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
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
			return consent.Reply{}, fmt.Errorf("gatehouse: elicitation: %w", ctx.Err())
		}
		return consent.Reply{}, fmt.Errorf("gatehouse: elicitation failed: %w", err)
	}
	approver := "mcp-client"
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		approver = "user of " + ip.ClientInfo.Name
	}
	if res.Action == "accept" && res.Content["approve"] == true {
		return consent.Reply{Decision: consent.Approved, Approver: approver}, nil
	}
	// decline, cancel, or an accept without a yes: not an approval.
	return consent.Reply{Decision: consent.Denied, Approver: approver}, nil
}

type sessionKey struct{}

// withSession puts the request's server session in ctx for the elicitation channel.
func withSession(ctx context.Context, req mcp.Request) context.Context {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		return context.WithValue(ctx, sessionKey{}, ss)
	}
	return ctx
}
