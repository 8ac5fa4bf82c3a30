package consent

import (
	"context"
	"time"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// EventType names an audit event of ACP §7.3 that this package emits.
type EventType string

// The events of ACP §7.3 that consent emits.
const (
	EventRequested          EventType = "consent_requested"
	EventApproved           EventType = "consent_approved"
	EventDenied             EventType = "consent_denied"
	EventExpired            EventType = "consent_expired"
	EventCredentialInjected EventType = "credential_injected"
)

// Event is one audit record. It never holds parameter values, secrets,
// signatures or keys: the root package writes it to the audit log as is.
type Event struct {
	Type      EventType
	Time      time.Time
	RequestID string
	Agent     string // Agent.ID
	Tool      string // normalized
	Server    string
	Category  policy.Category
	Risk      policy.Risk
	RuleID    string
	// Decision is "approved", "approved_with_modifications", "denied",
	// "expired" or "" (consent_requested, credential_injected).
	Decision string
	Channel  string // the channel's Name
	Approver string // Approver.ID, when a human decided
	// Attestation says who vouches for the answer: "human" (the channel
	// authenticated the human) or "client" (an MCP client's word, such as
	// an elicitation answer the agent's own client may give).
	Attestation Attestation
	// ResponseTime is from the request to the decision (ACP §7.4
	// response_time_ms); zero for consent_requested.
	ResponseTime time.Duration
	// ArgsHash is [ActionHash] of the parameters that run (approvals only),
	// so a log reader can tie the approval to the executed call.
	ArgsHash string
	// Reason says why a call was denied (the human, a timeout, a channel
	// failure, a refused proof); never values.
	Reason string
	// Credential is the name of the injected secret (credential_injected
	// only), never its value.
	Credential string
}

// EventFunc receives the package's audit events; the root package connects
// it to the audit log. It is called synchronously on the caller's
// goroutine and must be safe for concurrent use.
//
// An error fails closed where the event must be on record before its
// effect: a consent_requested error stops the request from being asked, a
// consent_approved error turns the approval into a failure, and a
// credential_injected error stops the injection. Errors on denial and
// expiry events are returned too, but the call is denied anyway.
type EventFunc func(ctx context.Context, e Event) error

func (f EventFunc) emit(ctx context.Context, e Event) error {
	if f == nil {
		return nil
	}
	return f(ctx, e)
}
