package gatehouse

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/internal/elicitstate"
	"github.com/gatehouse-dev/gatehouse/internal/jcs"
	"github.com/gatehouse-dev/gatehouse/internal/prompt"
	"github.com/gatehouse-dev/gatehouse/internal/runes"
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
// reach the same check. A client that cannot elicit is asked through
// Options.Ask instead, or refused (-32004) with a reason that says so.
//
// Only the tool registered here, on s and under exactly t.Name, asks this
// way: a tool of the same name on another server, or another spelling,
// does not. Decisions other than ask are unchanged. The tool must be served
// by a server g is installed on; a call that did not pass through g is
// refused.
//
// The signature (HMAC-SHA256 under ElicitOptions.Key) stops a client from
// forging or reusing an approval for a different call. Each approval runs
// once (ElicitOptions.Nonces). It cannot prove that a human, rather than
// the client program, answered: elicitation trusts the client's UI. Use the
// approval package (passkeys) where that matters.
func AddTool[In, Out any](s *mcp.Server, g *Guard, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	marked := *t
	marked.Meta = mcp.Meta{}
	for k, v := range t.Meta {
		marked.Meta[k] = v
	}
	marked.Meta[elicitMarker] = g.token
	mcp.AddTool(s, &marked, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		c, ok := callOf(ctx, g)
		if !ok || c.rawTool != req.Params.Name {
			d := internal(policy.MethodToolsCall, normalizeTool(t.Name), "This tool is registered with gatehouse.AddTool but the guard is not installed on the server; the call was denied")
			g.auditFailure(ctx, d, identity(req, g.o.DefaultAgent)) // the only record g has of the call
			return nil, zero, rpcError(d, "")
		}
		if !c.elicit {
			return h(ctx, req, in) // decided and committed by the pipeline
		}
		res, err := g.elicitAnswer(c, req)
		if res != nil && err == nil && serverElicits(req) {
			if req, err = g.elicitHere(ctx, c, req, res); err == nil {
				res, err = g.elicitAnswer(c, req)
			}
		}
		if res != nil || err != nil {
			return res, zero, err
		}
		return h(ctx, req, in)
	})
}

// elicitAnswer returns a result or error to send instead of running the
// tool, or (nil, nil) when the user approved this very call and it
// committed. req is the request the handler got: the pipeline's, or on
// sessions before 2026-07-28 go-sdk's own retry of it with the user's
// answer; its arguments must be the ones the policy decided on.
func (g *Guard) elicitAnswer(c *call, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	argsHash, err := hashArgs(req.Params.Arguments)
	decided, err2 := hashArgs(c.rawArgs)
	if err != nil || err2 != nil {
		return nil, g.elicitDenied(c, invalidParams(c.tool, "Tool arguments cannot be canonicalized"))
	}
	if argsHash != decided {
		return nil, g.elicitDenied(c, deniedAsk(c.d, "The arguments changed between the decision and the approval"))
	}
	now := g.now()
	p := req.Params
	if p.RequestState == "" && len(p.InputResponses) == 0 {
		return g.askByElicitation(c, argsHash, now)
	}
	if d, ok := g.checkElicited(c, p, argsHash, now); !ok {
		g.observeElicited(c, p.RequestState, d.Code)
		return nil, g.elicitDenied(c, d)
	}
	g.observeElicited(c, p.RequestState, 0)
	scope, remember, r := g.elicitedScope(c, p)
	if r != nil {
		return nil, g.elicitDenied(c, r.d)
	}
	if r := g.recheckPin(c); r != nil {
		return nil, g.elicitDenied(c, r.d)
	}
	if !c.commitLate() {
		if c.abandoned() {
			// HandlerTimeout answered the call while the user looked at the
			// form: an approval that comes after the answer commits nothing.
			return nil, rpcError(internal(c.d.Method, c.tool, "The call timed out before it was approved"), c.rawTool)
		}
		return nil, g.elicitDenied(c, internal(c.d.Method, c.tool, "The call was already approved once; a second approval commits nothing"))
	}
	c.d = policy.Decision{Outcome: policy.Allow, Method: c.d.Method, Tool: c.d.Tool, Reason: "User approved through elicitation", Violation: c.d.Violation}
	if r := g.commit(c); r != nil {
		return nil, g.elicitDenied(c, r.d)
	}
	if remember {
		g.remember(c, scope, grant.AttestedClient)
	}
	return nil, nil
}

// checkElicited verifies the retry of an elicitation round: a state this
// Guard signed for this call (tool, agent, arguments), not expired, with
// the user's yes, used once. ok is false with the denial otherwise.
func (g *Guard) checkElicited(c *call, p *mcp.CallToolParamsRaw, argsHash string, now time.Time) (policy.Decision, bool) {
	st, err := g.sealer.Open(p.RequestState)
	if err != nil || st.Tool != c.tool || st.Def != c.def || st.Agent != c.agent || !hmac.Equal([]byte(st.Args), []byte(argsHash)) {
		return deniedAsk(c.d, "The approval does not match this call"), false
	}
	if now.UnixMilli() >= st.Exp {
		d := c.d.Denied(true)
		d.Reason = "The approval request expired"
		return d, false
	}
	ans, ok := p.InputResponses[ApprovalInputID].(*mcp.ElicitResult)
	if !ok || ans == nil {
		return deniedAsk(c.d, "No answer to the approval request"), false
	}
	if ans.Action != "accept" || ans.Content["approve"] != true {
		return deniedAsk(c.d, "User denied the call"), false
	}
	if err := g.useNonce(c, "gatehouse-elicit:"+st.Nonce, time.UnixMilli(st.Exp)); err != nil {
		reason := "This approval was already used"
		if !errors.Is(err, consent.ErrReplayed) {
			g.log.ErrorContext(c.ctx, "gatehouse: elicitation nonce store failed", "error", err)
			reason = "The approval could not be checked for reuse, so the call was denied"
		}
		return deniedAsk(c.d, reason), false
	}
	return policy.Decision{}, true
}

// elicitDenied audits and returns a denial from inside the AddTool wrapper.
func (g *Guard) elicitDenied(c *call, d policy.Decision) error {
	if l := c.late.Load(); l != nil {
		return rpcError(l.d, c.rawTool) // already refused: runHandler answers (and audits) that refusal, once
	}
	if !c.claimRefusal() {
		return rpcError(d, c.rawTool) // answered and audited as timed out: no one hears this
	}
	g.observeRefusal(c, "answer", refuse(d))
	if err := g.auditDecision(c.ctx, d, c.agent, c.rawArgs); err != nil {
		g.log.ErrorContext(c.ctx, "gatehouse: audit write failed", "method", d.Method, "error", err)
	}
	g.recordTrust(c.ctx, c.agent, d, true)
	c.deny(d, true) // runHandler answers it in the configured form (DenyAsToolResult)
	return rpcError(d, c.rawTool)
}

// askByElicitation builds the input-required result: one yes/no question,
// and the signed state the retry must carry. The ask is audited; nothing
// is charged and the conversation step is released until the retry.
func (g *Guard) askByElicitation(c *call, argsHash string, now time.Time) (*mcp.CallToolResult, error) {
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, rpcError(internal(c.d.Method, c.tool, "No randomness for the approval request"), "")
	}
	state, err := g.sealer.Seal(elicitstate.State{Tool: c.tool, Def: c.def, Agent: c.agent, Args: argsHash, Exp: now.Add(elicitTTL).UnixMilli(), Nonce: hex.EncodeToString(nonce)})
	if err != nil {
		return nil, rpcError(internal(c.d.Method, c.tool, "The approval request could not be built"), "")
	}
	question, why := g.question(c)
	if why != "" {
		return nil, g.elicitDenied(c, deniedAsk(c.d, why))
	}
	if err := g.auditDecision(c.ctx, c.d, c.agent, c.rawArgs); err != nil {
		return nil, rpcError(internal(c.d.Method, c.tool, auditDown), "")
	}
	g.observeRefusal(c, "answer", refuse(c.d)) // ASK: answered on the retry
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{ApprovalInputID: &mcp.ElicitParams{
			Mode:    "form",
			Message: question,
			RequestedSchema: g.withScopeField(c, map[string]any{
				"type": "object",
				"properties": map[string]any{
					"approve": map[string]any{"type": "boolean", "title": "Approve this call", "description": "Allow this one call to run"},
				},
				"required": []string{"approve"},
			}),
		}},
		RequestState: state,
	}, nil
}

// question is the text the user is asked: gatehouse's one prompt
// rendering (every argument name shown, each value cut on its own with the
// hidden bytes said, invisible and bidi runes escaped) of the arguments the
// handler receives (the input schema's defaults filled in, and named on a
// line of their own: shownArgs).
// When they cannot be shown whole, or hold text DLP would redact on the
// way to the client (prompthide.go), it returns the reason the call is
// denied rather than asked.
func (g *Guard) question(c *call) (text, why string) {
	shown, defaulted, ok := g.shownArgs(c)
	if !ok {
		return "", cannotShowDefaults
	}
	args := []byte(shown)
	if len(strings.TrimSpace(string(args))) == 0 {
		args = []byte("{}")
	}
	if fs, hidden := g.promptHidden(args); hidden {
		return "", hiddenBySecretScan(fs)
	}
	lines, err := prompt.Render(args, nil)
	if err != nil {
		return "", "The arguments are too many or too long to be shown for approval, so the call was denied"
	}
	text = fmt.Sprintf("Allow the agent %s to call the tool %s with these arguments?\n%s",
		runes.Escape(strconv.Quote(c.agent)), runes.Escape(strconv.Quote(c.rawTool)), lines)
	if note := defaultsNote(defaulted); note != "" {
		text += note + "\n"
	}
	if fs, hidden := g.questionHidden(text); hidden {
		return "", hiddenBySecretScan(fs)
	}
	return text, ""
}

// useNonce spends an approval's nonce, within the agent's own share when
// the store bounds shares (consent.ScopedNonceStore): one agent that fills
// the store refuses only itself.
func (g *Guard) useNonce(c *call, nonce string, until time.Time) error {
	if s, ok := g.nonces.(consent.ScopedNonceStore); ok {
		return s.UseScoped(c.ctx, c.agent, nonce, until)
	}
	return g.nonces.Use(c.ctx, nonce, until)
}

// hashArgs is the hash the elicitation state binds: gatehouse's one
// canonical form, internal/jcs under its strict rule (the form approval and
// consent hash: TestHashesAgree), which refuses numbers a double would
// round and member names equal under case folding. Absent arguments are
// {}; anything but an object is refused.
func hashArgs(raw json.RawMessage) (string, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		return "", errors.New("gatehouse: arguments must be a JSON object")
	}
	canon, err := jcs.Transform(trimmed, jcs.Strict)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}
