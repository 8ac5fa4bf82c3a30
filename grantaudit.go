package gatehouse

import (
	"context"
	"errors"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// The audit events of grants (audit.Event.Event).
const (
	grantCreated  = "GRANT_CREATED"
	grantUsed     = "GRANT_USED"
	grantRefunded = "GRANT_REFUNDED" // a use given back: the call was refused after it took it
	grantRevoked  = "GRANT_REVOKED"
	grantExpired  = "GRANT_EXPIRED"
	grantRefused  = "GRANT_REFUSED" // a scope was chosen and no grant could be made
)

// GrantEvent is the audit event of one grant's life (kind is one of
// GRANT_CREATED, GRANT_USED, GRANT_REFUNDED, GRANT_REVOKED, GRANT_EXPIRED,
// GRANT_REFUSED), for programs that manage a grant store without a Guard
// (a command-line `grants revoke`): write it to the same audit log. It
// records the grant's id, scope, attestation, uses left and expiry, never
// argument values.
func GrantEvent(kind string, gr grant.Grant, reason string) *audit.Event {
	e := &audit.Event{
		Event:  kind,
		Method: policy.MethodToolsCall,
		Tool:   gr.Tool,
		Agent:  gr.Principal,
		Metadata: map[string]any{
			"grant_id":    gr.ID,
			"scope":       gr.Scope,
			"attestation": gr.Attestation,
		},
	}
	if gr.ID == "" {
		delete(e.Metadata, "grant_id")
	}
	if !gr.Expires.IsZero() {
		e.Metadata["expires"] = gr.Expires.UTC().Format(time.RFC3339)
		e.Metadata["uses_left"] = gr.Left
	}
	if gr.Session != "" {
		e.Metadata["session_bound"] = true
	}
	if reason != "" {
		e.Metadata["reason"] = reason
	}
	return e
}

// auditGrant writes one grant event; tool names and reasons pass the
// Guard's redaction like every other audited string.
func (g *Guard) auditGrant(ctx context.Context, kind string, gr grant.Grant, reason string) error {
	if g.o.Audit == nil {
		return nil
	}
	e := GrantEvent(kind, gr, g.redacted(reason))
	e.PolicyMode = g.p.Mode().String()
	e.Tool = g.redacted(e.Tool)
	return g.o.Audit.Write(ctx, e)
}

// auditGrants writes an event per grant, logging failures (the events of
// expiries and refusals do not decide a call).
func (g *Guard) auditGrants(ctx context.Context, kind string, grs []grant.Grant, reason string) {
	for _, gr := range grs {
		if err := g.auditGrant(ctx, kind, gr, reason); err != nil {
			g.log.Error("gatehouse: audit write failed", "event", kind, "error", err)
		}
	}
}

// errNoGrants: the Guard was built without Options.Grants.
var errNoGrants = errors.New("gatehouse: grants are not configured (Options.Grants)")

// Grants lists the live grants of principal ("" for every principal; see
// GrantPrincipal and LocalGrantPrincipal), recording the expiries it finds.
func (g *Guard) Grants(ctx context.Context, principal string) ([]grant.Grant, error) {
	if g.o.Grants == nil {
		return nil, errNoGrants
	}
	return ListGrants(ctx, g.o.Grants.Store, g.o.Audit, principal, g.now())
}

// RevokeGrant revokes the grant id of principal, effective on the next
// call, and records it.
func (g *Guard) RevokeGrant(ctx context.Context, principal, id string) (grant.Grant, error) {
	if g.o.Grants == nil {
		return grant.Grant{}, errNoGrants
	}
	return RevokeGrant(ctx, g.o.Grants.Store, g.o.Audit, principal, id)
}

// ListGrants lists the live grants of principal ("" for all) in st and
// writes a GRANT_EXPIRED event to w (when not nil) for each expired grant
// the store removed on the way: the library side of `gatehouse grants
// list`.
func ListGrants(ctx context.Context, st grant.Store, w audit.Sink, principal string, now time.Time) ([]grant.Grant, error) {
	w = auditSink(w)
	live, expired, err := st.List(ctx, principal, now)
	if err != nil {
		return nil, err
	}
	if w != nil {
		for _, gr := range expired {
			if err := w.Write(ctx, GrantEvent(grantExpired, gr, "")); err != nil {
				return live, err
			}
		}
	}
	return live, nil
}

// RevokeGrant removes the grant id of principal from st and writes a
// GRANT_REVOKED event to w (when not nil): the library side of `gatehouse
// grants revoke`. The next call the grant would have covered is asked.
func RevokeGrant(ctx context.Context, st grant.Store, w audit.Sink, principal, id string) (grant.Grant, error) {
	w = auditSink(w)
	gr, err := st.Revoke(ctx, principal, id)
	if err != nil {
		return grant.Grant{}, err
	}
	if w != nil {
		if err := w.Write(ctx, GrantEvent(grantRevoked, gr, "")); err != nil {
			return gr, err
		}
	}
	return gr, nil
}
