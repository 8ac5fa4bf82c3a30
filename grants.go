package gatehouse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// GrantOptions let a human who approves an ask remember the approval for a
// scope the server author offers: this tool with these arguments for a
// while, for a number of calls, or for the MCP session. Once (no grant)
// stays the default. A later call that a live grant covers runs without
// asking; every grant made, used, refunded, revoked or expired is an
// event in the audit log.
//
// A grant never widens the policy: only a call the policy (or trust level)
// decided to ask about looks for one, after every stage that refuses;
// blocked tools, protected paths, rate limits and budgets refuse as
// before. Tools that require passkey approval never use grants.
type GrantOptions struct {
	// Store holds the grants: grant.NewMemoryStore for one process,
	// grant/redisgrant for replicas. nil: in this Guard's memory.
	Store grant.Store
	// Offers lists, per tool (keyed by the exact name go-sdk dispatches),
	// the scopes the human may choose. A tool without offers is asked
	// every time, and its grants (if any remain) are not used.
	Offers map[string][]grant.Scope
	// ForUnauthenticated lets requests without a bearer-token identity
	// make and use grants, all as one principal (LocalGrantPrincipal),
	// whatever client name they declare. Set it only where the transport
	// is the authentication, such as a local stdio server. Without it only
	// authenticated users ("user:<id>") hold grants.
	ForUnauthenticated bool
}

func (o *Options) validateGrants() error {
	if o.Grants == nil {
		return nil
	}
	c := *o.Grants
	o.Grants = &c
	var errs []error
	if c.Store == nil {
		st, err := grant.NewMemoryStore(nil)
		if err != nil {
			return err
		}
		c.Store = st
	}
	offers := make(map[string][]grant.Scope, len(c.Offers))
	for tool, scopes := range c.Offers {
		offers[tool] = append([]grant.Scope(nil), scopes...) // the caller's map may change later; ours does not
		seen := map[string]bool{}
		for _, s := range scopes {
			if err := s.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("gatehouse: Options.Grants.Offers[%q]: %w", tool, err))
			}
			if seen[s.ID] {
				errs = append(errs, fmt.Errorf("gatehouse: Options.Grants.Offers[%q]: scope %q offered twice", tool, s.ID))
			}
			seen[s.ID] = true
		}
	}
	c.Offers = offers
	return errors.Join(errs...)
}

// LocalGrantPrincipal is the principal of every request without a
// bearer-token identity when GrantOptions.ForUnauthenticated is set.
func LocalGrantPrincipal() string { return localApprovalID }

// GrantPrincipal is the principal of requests whose bearer token names
// userID (auth.TokenInfo.UserID), for listing and revoking that user's
// grants.
func GrantPrincipal(userID string) string { return "user:" + bound(userID) }

// grantPrincipal is who holds the grants of agent: an authenticated user,
// or the local user when the transport is the authentication. A client
// name is chosen by the client, so it never holds grants.
func (g *Guard) grantPrincipal(agent string) (string, bool) {
	if strings.HasPrefix(agent, "user:") {
		return agent, true
	}
	if g.o.Grants.ForUnauthenticated {
		return localApprovalID, true
	}
	return "", false
}

// offers returns the scopes offered for the call's tool, nil when grants
// are off or the tool has none, or when the tool requires passkeys.
func (g *Guard) offers(c *call) []grant.Scope {
	if g.o.Grants == nil || g.requiresApproval(c.rawTool, c.tool) {
		return nil
	}
	return g.o.Grants.Offers[c.rawTool]
}

// grantQuery is what a grant for c is bound to; ok is false when c cannot
// hold one (no principal, a tool the index does not know, arguments that
// have no canonical form).
func (g *Guard) grantQuery(c *call) (grant.Query, bool) {
	p, ok := g.grantPrincipal(c.agent)
	if !ok {
		return grant.Query{}, false
	}
	digest, ok := g.grantDigest(c)
	if !ok {
		return grant.Query{}, false
	}
	args, err := grant.CanonicalArgs(c.rawArgs)
	if err != nil {
		return grant.Query{}, false
	}
	rule, _ := g.p.Rule(c.tool)
	q := grant.Query{Principal: p, Tool: c.rawTool, Digest: digest, Args: args, Patterns: rule.Patterns}
	if ss, ok := c.req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		q.Session = ss.ID()
	}
	return q, true
}

// grantDigest is what a grant binds of the tool the call runs: the
// server's name and version with the definition digest the pin stage
// checked (callDigest; read from the server's listing when pinning is
// off), so that a grant made under one definition never answers a call to
// another. ok is false when the definition cannot be read.
func (g *Guard) grantDigest(c *call) (string, bool) {
	d, err := g.callDigest(c)
	if err != nil || d == "" {
		return "", false
	}
	x := &c.srv.index
	x.mu.Lock()
	server := x.server
	x.mu.Unlock()
	sum := sha256.Sum256([]byte(server + "\x00" + d))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// grantAnswer answers an ask from a live grant: one use is consumed
// atomically and the call goes on as allowed by that grant. used is false
// when no grant covers the call (the ask goes on as usual); a store error
// is logged and asks too. An ask that carries a violation (monitor mode
// asks about a value a rule's pattern refuses instead of blocking it) is
// never answered by a grant: the policy did not check that call, so a
// grant that takes the rule's patterns would let any value through.
func (g *Guard) grantAnswer(c *call) (r *refusal, used bool) {
	if c.d.Outcome != policy.Ask || c.d.Violation || len(g.offers(c)) == 0 {
		return nil, false
	}
	q, ok := g.grantQuery(c)
	if !ok {
		return nil, false
	}
	u, err := g.o.Grants.Store.Consume(c.ctx, q, g.now())
	g.auditGrants(c.ctx, grantExpired, u.Expired, "")
	if err != nil {
		if !errors.Is(err, grant.ErrNoGrant) {
			g.log.Error("gatehouse: grant store failed; asking instead", "tool", c.tool, "error", err)
		}
		return nil, false
	}
	if err := g.auditGrant(c.ctx, grantUsed, u.Grant, ""); err != nil {
		g.refundGrant(c, u.Grant)
		return refuse(internal(c.d.Method, c.tool, auditDown)), true
	}
	c.grant = &u.Grant
	c.d = policy.Decision{Outcome: policy.Allow, Method: c.d.Method, Tool: c.d.Tool, Violation: c.d.Violation,
		Reason: "Allowed by grant " + u.Grant.ID + " (scope " + u.Grant.Scope + ", approved by " + u.Grant.Attestation + ")"}
	return nil, true
}

// refundGrant gives back the use a refused call took (QWED §9.4: a denied
// call consumes nothing), and records it.
// Not with the call's context: a call is refused most often because it
// was cancelled, and a store that honours a cancelled context would keep
// the use (the store bounds the refund with its own timeout).
func (g *Guard) refundGrant(c *call, gr grant.Grant) {
	ctx := context.WithoutCancel(c.ctx)
	if err := g.o.Grants.Store.Refund(ctx, gr, g.now()); err != nil {
		g.log.WarnContext(ctx, "gatehouse: refunding a grant use failed", "grant", gr.ID, "error", err)
		return
	}
	if err := g.auditGrant(ctx, grantRefunded, gr, ""); err != nil {
		g.log.Error("gatehouse: audit write failed", "event", grantRefunded, "error", err)
	}
}

// undoGrant refunds the grant use of a call refused after it took one.
func (g *Guard) undoGrant(c *call) {
	if c.grant != nil {
		gr := *c.grant
		c.grant = nil
		g.refundGrant(c, gr)
	}
}

// chooseScope checks the scope a human chose for c: "" or "once" means no
// grant; an id the server does not offer for this tool denies the call.
func (g *Guard) chooseScope(c *call, id string) (grant.Scope, bool, *refusal) {
	s, ok, err := grant.Choose(g.offers(c), id)
	if err != nil {
		return grant.Scope{}, false, refuse(deniedAsk(c.d, "The approval chose a scope the server does not offer for this tool, so the call was denied"))
	}
	return s, ok, nil
}

// remember makes the grant a human chose when approving c. A call that
// cannot hold one (no principal, no session id for a session scope) or a
// store that refuses it (the principal's cap) still runs once: the failure
// is recorded and the approval covers this call only.
func (g *Guard) remember(c *call, s grant.Scope, attestation string) {
	q, ok := g.grantQuery(c)
	if !ok {
		g.auditGrants(c.ctx, grantRefused, []grant.Grant{{Tool: c.rawTool, Scope: s.ID, Attestation: attestation}}, "this caller cannot hold grants (no authenticated user)")
		return
	}
	rule, _ := g.p.Rule(c.tool)
	gr, err := grant.New(s, grant.Binding{Principal: q.Principal, Tool: q.Tool, Digest: q.Digest, Session: q.Session}, q.Args, rule.Patterns, attestation, g.now())
	if err == nil {
		var expired []grant.Grant
		expired, err = g.o.Grants.Store.Create(c.ctx, gr, g.now())
		g.auditGrants(c.ctx, grantExpired, expired, "")
	}
	if err != nil {
		g.log.Warn("gatehouse: a grant was not made; the approval covers this call only", "tool", c.tool, "error", err)
		gr.Principal, gr.Tool, gr.Scope, gr.Attestation = q.Principal, q.Tool, s.ID, attestation
		g.auditGrants(c.ctx, grantRefused, []grant.Grant{gr}, err.Error())
		return
	}
	if err := g.auditGrant(c.ctx, grantCreated, gr, ""); err != nil {
		// A grant the log does not record must not exist.
		g.log.Error("gatehouse: audit write failed; the grant is withdrawn", "event", grantCreated, "error", err)
		if _, err := g.o.Grants.Store.Revoke(c.ctx, gr.Principal, gr.ID); err != nil {
			g.log.Error("gatehouse: withdrawing an unrecorded grant failed", "grant", gr.ID, "error", err)
		}
	}
}
