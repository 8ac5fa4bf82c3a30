package gatehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// A tools/call can outlive the definition it was decided on. For a client
// before protocol 2026-07-28, a handler's input-required result is
// answered by go-sdk's server itself: it elicits (or samples, or lists
// roots) inside the one tools/call, then dispatches the call again by the
// tool's name, below the Guard. A tool re-registered while the user looks
// at the form would run on the decision about the old one. The server's
// requests to the client are where such a round trip goes: when one made
// for a call whose definition was pinned comes back, the definition is
// read again, and a changed or removed one withdraws the call: the answer
// is not handed on (so go-sdk dispatches nothing), and the call is refused
// with the pin's -32013, audited once.

// midCall is the sending middleware's check of a server-to-client request
// made for a call of s's Guard, once the client has answered. It returns
// the error to give the sender instead of the answer, or nil.
func (s *served) midCall(ctx context.Context, method string) error {
	if strings.HasPrefix(method, "notifications/") || s.guard == nil {
		return nil
	}
	c, ok := callOf(ctx, s.guard)
	if !ok || c.srv != s || c.digest == "" {
		return nil // not a pinned call of this server (pinning off: nothing promised about definitions)
	}
	c.waited.Store(true)
	d, changed := s.guard.redecided(c)
	if !changed {
		return nil
	}
	c.deny(d, false)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "gatehouse: the tool's definition changed during the call, so the " + method + " answer was not used"}
}

// redecided reads c's tool as the server lists it now and reports the
// denial when it is no longer the definition c was decided on.
func (g *Guard) redecided(c *call) (policy.Decision, bool) {
	t, err := c.srv.index.current(context.WithoutCancel(c.ctx), c.req, c.rawTool)
	if err != nil {
		return internal(c.md.Method, c.tool, "The server's tools could not be listed to check the tool's definition during the call, so the call was denied"), true
	}
	if t == nil {
		return notListed(c.tool), true
	}
	cur, err := c.srv.index.digest(t)
	if err != nil {
		return internal(c.md.Method, c.tool, "The tool's definition cannot be canonicalized for pinning, so the call was denied"), true
	}
	if cur == c.digest {
		return policy.Decision{}, false
	}
	g.pins.noteDrift(Drift{Tool: c.rawTool, Pinned: c.digest, Current: cur})
	g.log.Error("gatehouse: a tool's definition changed during a call; the call was withdrawn",
		"tool", clipName(c.rawTool), "pinned", c.digest, "current", cur)
	d := definitionChanged(c.tool, c.rawTool, c.digest, cur)
	d.Reason = fmt.Sprintf("%s (it changed while the call waited for the client)", d.Reason)
	return d, true
}

// lateAnswer is the answer to a call the Guard refused after its stages
// (audited once), or ok false. A call HandlerTimeout answered has that
// answer, audited by bounded. A pinned call during which the server waited
// for the client is checked once more when its handler returns: a change
// made between the last answer's check and go-sdk's dispatch by name ran
// the changed tool, whose result is withheld (and the drift noted).
func (g *Guard) lateAnswer(c *call) (res mcp.Result, err error, ok bool) {
	if c.abandoned() {
		return nil, nil, false
	}
	if c.late.Load() == nil && c.waited.Load() {
		if d, changed := g.redecided(c); changed {
			c.deny(d, false)
		}
	}
	l := c.late.Load()
	if l == nil {
		return nil, nil, false
	}
	if !l.audited {
		g.auditFailure(c.ctx, l.d, c.agent)
	}
	res, err = g.answerDenial(l.d, c.rawTool)
	return res, err, true
}
