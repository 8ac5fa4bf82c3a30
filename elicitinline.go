package gatehouse

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// multiRoundTripVersion is the first protocol version whose clients retry
// an input-required tools/call themselves (SEP-2322).
const multiRoundTripVersion = "2026-07-28"

// serverElicits reports whether req comes from a session whose client
// cannot retry an input-required result itself (protocol before
// 2026-07-28), so that the server must ask the user inside this request.
func serverElicits(req *mcp.CallToolRequest) bool {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < multiRoundTripVersion
}

// elicitHere asks the user of such a session AddTool's question res
// itself and returns the retry of req with the answer. go-sdk would do it
// too, but then dispatch the retry again by the tool's name: a tool
// re-registered while the user looked at the form (a plain handler that
// knows nothing of the approval) would run, whatever the user answered.
// Done here, the retry stays in this wrapper, and the approved handler is
// the only one that can run.
func (g *Guard) elicitHere(ctx context.Context, c *call, req *mcp.CallToolRequest, res *mcp.CallToolResult) (*mcp.CallToolRequest, error) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	params, ok := res.InputRequests[ApprovalInputID].(*mcp.ElicitParams)
	if ss == nil || !ok || len(res.InputRequests) != 1 {
		return nil, g.elicitDenied(c, internal(policy.MethodToolsCall, c.tool, "The approval request could not be built"))
	}
	ans, err := ss.Elicit(ctx, params)
	if err != nil || ans == nil {
		g.log.WarnContext(ctx, "gatehouse: asking the user through elicitation failed", "tool", c.tool, "error", err)
		return nil, g.elicitDenied(c, deniedAsk(c.d, "Approval could not be obtained; the call was denied"))
	}
	retry := *req
	p := *req.Params
	p.InputResponses = mcp.InputResponseMap{ApprovalInputID: ans}
	p.RequestState = res.RequestState
	retry.Params = &p
	return &retry, nil
}
