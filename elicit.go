package gatehouse

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// ApprovalInputID is the input-request id AddTool uses for its question.
const ApprovalInputID = "gatehouse_approval"

// elicitTTL is how long an elicitation round trip may take.
const elicitTTL = 5 * time.Minute

// AddTool registers a typed tool on s, like mcp.AddTool, whose "ask"
// decisions are answered by the user through MCP elicitation (DESIGN §4):
// the first call returns an input-required result with a yes/no question
// and a signed request state; the client asks its user and retries with the
// answer; the tool runs only when the state verifies (same tool, same agent,
// same arguments, not expired, not used before) and the user accepted.
// go-sdk clients on protocol 2026-07-28 do the retry themselves; on older
// protocol versions go-sdk's server elicits on the client's behalf. Both
// reach the same check.
//
// Decisions other than ask are unchanged: allowed calls run, denied calls
// never reach the handler. The tool must be served by a server g is
// installed on; a call that did not pass through g is refused.
//
// The signature (HMAC-SHA256 under Options.ElicitKey) stops a client from
// forging or reusing an approval for a different call. Each approval runs
// once: its nonce goes to Options.ElicitNonces (shared in Redis across
// replicas with consent/redisnonce; per Guard in memory by default). It cannot prove that
// a human, rather than the client program, answered: elicitation trusts the
// client's UI. Use the approval package (passkeys) where that matters.
func AddTool[In, Out any](s *mcp.Server, g *Guard, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	g.elicit.Store(normalize.Name(t.Name), true)
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		dc, ok := decidedFrom(ctx)
		d := dc.d
		switch {
		case !ok:
			return nil, zero, rpcError(internal(policy.MethodToolsCall, t.Name, "This tool is registered with gatehouse.AddTool but the guard is not installed on the server; the call was denied"), "")
		case d.Outcome == policy.Allow:
			return h(ctx, req, in)
		case d.Outcome != policy.Ask:
			return nil, zero, rpcError(d, req.Params.Name)
		}
		res, err := g.elicitApproval(ctx, d, dc.call.Agent, req)
		if res != nil || err != nil {
			return res, zero, err
		}
		if g.o.Budget != nil {
			if err := g.o.Budget.Charge(ctx, dc.call.Agent, g.usage(dc.call)); err != nil {
				return nil, zero, rpcError(limitDecision(d.Method, d.Tool, err), req.Params.Name)
			}
		}
		return h(ctx, req, in)
	})
}

// approvalState is what the signed request state carries.
type approvalState struct {
	V     int    `json:"v"`
	Tool  string `json:"t"`
	Agent string `json:"a"`
	Args  string `json:"h"` // hex SHA-256 of the JCS form of the arguments
	Exp   int64  `json:"e"` // unix milliseconds
	Nonce string `json:"n"`
}

// elicitApproval returns a result or error to send instead of running the
// tool, or (nil, nil) when the user approved this very call.
func (g *Guard) elicitApproval(ctx context.Context, d policy.Decision, agent string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	argsHash, err := hashArgs(req.Params.Arguments)
	if err != nil {
		return nil, rpcError(invalidParams(d.Tool, "Tool arguments cannot be canonicalized"), req.Params.Name)
	}
	now := g.now()
	p := req.Params
	if p.RequestState == "" && len(p.InputResponses) == 0 {
		return g.askByElicitation(d, agent, argsHash, now, req)
	}
	st, err := g.openState(p.RequestState)
	if err != nil || st.Tool != d.Tool || st.Agent != agent || !hmac.Equal([]byte(st.Args), []byte(argsHash)) {
		return nil, g.elicitDenied(ctx, d, agent, req, false, "The approval does not match this call")
	}
	if now.UnixMilli() >= st.Exp {
		return nil, g.elicitDenied(ctx, d, agent, req, true, "The approval request expired")
	}
	ans, ok := p.InputResponses[ApprovalInputID].(*mcp.ElicitResult)
	if !ok || ans == nil {
		return nil, g.elicitDenied(ctx, d, agent, req, false, "No answer to the approval request")
	}
	if ans.Action != "accept" || ans.Content["approve"] != true {
		return nil, g.elicitDenied(ctx, d, agent, req, false, "User denied the call")
	}
	if err := g.elicitNonces.Use(ctx, "gatehouse-elicit:"+st.Nonce, time.UnixMilli(st.Exp)); err != nil {
		reason := "This approval was already used"
		if !errors.Is(err, consent.ErrReplayed) {
			g.log.Error("gatehouse: elicitation nonce store failed", "error", err)
			reason = "The approval could not be checked for reuse, so the call was denied"
		}
		return nil, g.elicitDenied(ctx, d, agent, req, false, reason)
	}
	approved := policy.Decision{Outcome: policy.Allow, Method: d.Method, Tool: d.Tool, Reason: "User approved through elicitation"}
	if err := g.auditDecision(ctx, approved, agent, p.Arguments); err != nil {
		return nil, rpcError(internal(d.Method, d.Tool, auditDown), "")
	}
	return nil, nil
}

func (g *Guard) elicitDenied(ctx context.Context, d policy.Decision, agent string, req *mcp.CallToolRequest, timeout bool, reason string) error {
	out := d.Denied(timeout)
	out.Reason = reason
	if err := g.auditDecision(ctx, out, agent, req.Params.Arguments); err != nil {
		g.log.Error("gatehouse: audit write failed", "error", err)
	}
	return rpcError(out, req.Params.Name)
}

// askByElicitation builds the input-required result: one yes/no question,
// and the signed state the retry must carry.
func (g *Guard) askByElicitation(d policy.Decision, agent, argsHash string, now time.Time, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, rpcError(internal(d.Method, d.Tool, "No randomness for the approval request"), "")
	}
	state, err := g.sealState(approvalState{V: 1, Tool: d.Tool, Agent: agent, Args: argsHash, Exp: now.Add(elicitTTL).UnixMilli(), Nonce: hex.EncodeToString(nonce)})
	if err != nil {
		return nil, rpcError(internal(d.Method, d.Tool, "The approval request could not be built"), "")
	}
	args := string(req.Params.Arguments)
	if g.dlp != nil {
		args, _ = g.dlp.Redact(args)
	}
	if len(args) > 1000 {
		args = args[:1000] + "..."
	}
	msg := fmt.Sprintf("Allow the agent %q to call the tool %q with these arguments?\n%s", agent, d.Tool, args)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{ApprovalInputID: &mcp.ElicitParams{
			Mode:    "form",
			Message: msg,
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"approve": map[string]any{"type": "boolean", "title": "Approve this call", "description": "Allow this one call to run"},
				},
				"required": []string{"approve"},
			},
		}},
		RequestState: state,
	}, nil
}

// stateMatches reports whether a call carries a valid signed state for
// this very call (tool, agent, arguments), whatever the answer in it.
func (g *Guard) stateMatches(call *mcp.CallToolRequest, tool, agent string) bool {
	if call.Params.RequestState == "" {
		return false
	}
	st, err := g.openState(call.Params.RequestState)
	if err != nil || st.Tool != tool || st.Agent != agent {
		return false
	}
	h, err := hashArgs(call.Params.Arguments)
	return err == nil && hmac.Equal([]byte(h), []byte(st.Args))
}

func hashArgs(raw json.RawMessage) (string, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = json.RawMessage("{}")
	}
	// RFC 8785 with numbers that a double would round refused, so two
	// different calls never share a signed state (found in review).
	c, err := approval.CanonicalArguments(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

func (g *Guard) mac(b []byte) []byte {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte("gatehouse approval state v1\x00"))
	m.Write(b)
	return m.Sum(nil)
}

func (g *Guard) sealState(st approvalState) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b) + "." + enc.EncodeToString(g.mac(b)), nil
}

var errBadState = errors.New("gatehouse: invalid approval state")

func (g *Guard) openState(s string) (approvalState, error) {
	var st approvalState
	body, sig, ok := strings.Cut(s, ".")
	if !ok || len(s) > 4096 {
		return st, errBadState
	}
	enc := base64.RawURLEncoding
	b, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, g.mac(b)) {
		return st, errBadState
	}
	if err := json.Unmarshal(b, &st); err != nil || st.V != 1 {
		return st, errBadState
	}
	return st, nil
}
