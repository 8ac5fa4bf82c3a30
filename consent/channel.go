package consent

import "context"

// Channel delivers a consent request to a human and waits for the answer
// (ACP §2.4 steps 5-6). The built-in channels are in consent/terminal,
// consent/webhook and consent/telegram; consent/elicitation asks through
// MCP elicitation.
//
// Ask must return by the time ctx is done (the [Asker] sets its deadline at
// the request's expires_at) with ctx.Err() or an error wrapping it, and a
// Reply only for an answer it authenticated as coming from the human for
// this very request. Any error denies the call. Implementations must be
// safe for concurrent use and must pass consenttest.TestChannel.
type Channel interface {
	// Name is the channel's name for ConsentResponse.approver.channel and
	// the audit log: "terminal", "webhook", "telegram", ...
	Name() string
	Ask(ctx context.Context, req *ConsentRequest) (Reply, error)
}

// Reply is a human's answer as a channel received it. Modifications is
// set only with ApprovedWithModifications: its top-level keys replace the
// request's parameters (see [ApplyModifications]).
//
// Attestation says who vouches that a human answered: [AttestedHuman] only
// when the channel authenticated the answer as the human's (the built-in
// terminal, webhook and Telegram channels), [AttestedClient] when it is an
// MCP client's word (elicitation). Empty counts as AttestedClient: nobody
// vouched. It is signed into the proof and shown in every event.
type Reply struct {
	Decision      Decision
	Approver      string // who decided, as the channel knows them
	Modifications map[string]any
	Attestation   Attestation
	// Scope is the scope the human chose from [OfferedScopes]; "" or
	// ScopeOnce for this call only. A scope not offered fails the request.
	Scope string
}
