package gatehouse

import (
	"context"
	"time"
)

// Observer receives what the Guard decides and does, request by request,
// for metrics and traces (the module github.com/gatehouse-dev/gatehouse/otel
// has one backed by OpenTelemetry). Every method gets the request's
// context: the one Start returned. Set it as Options.Observer; nil costs
// nothing.
//
// Calls are made on the request's goroutine while the request waits, so
// implementations must be fast and must not block; they must be safe for
// concurrent use. An Observer sees what the audit log records, with the
// same redaction: tool names of denied calls are redacted like the log's,
// and no argument value, reason text or secret is passed. Embed
// [NopObserver] to implement only some methods.
//
// A panic in an Observer method called while a request is decided denies
// that request (-32603), as any panic in the guard does; a panic in End is
// recovered and logged, and the answer already given stands.
type Observer interface {
	// Start is called when a request arrives, before anything is decided.
	// The context it returns is used for the rest of the request; an
	// Observer that starts a span returns one carrying the span, and its
	// TraceContext ([ContextWithTrace]) so the audit events name it.
	Start(ctx context.Context, r RequestStart) context.Context
	// Decision is called once per request with the Guard's decision on it;
	// for a tool registered with AddTool that asks by elicitation, first
	// with ASK when the question goes out (on sessions before 2026-07-28
	// go-sdk asks inside the same request, so the final decision follows in
	// it; from 2026-07-28 it comes with the client's retry).
	Decision(ctx context.Context, d DecisionEvent)
	// Ask is called when a human (or the client for them) answered an ask.
	Ask(ctx context.Context, a AskEvent)
	// Redaction is called once per DLP rule that fired in one message.
	Redaction(ctx context.Context, r RedactionEvent)
	// Limit is called when a rate limit, in-flight cap, budget or
	// conversation guard refused a call.
	Limit(ctx context.Context, l LimitEvent)
	// AuditWrite is called after each write to Options.Audit.
	AuditWrite(ctx context.Context, a AuditWriteEvent)
	// End is called when the request is answered.
	End(ctx context.Context, e RequestEnd)
}

// RequestStart describes a request as it arrives.
type RequestStart struct {
	Method    string // as go-sdk dispatches it ("tools/call"); the tool comes with the DecisionEvent, normalized and redacted
	Agent     string // the identity the Guard keys limits on
	SessionID string // the MCP session, "" on stdio and in-memory transports
	// Trace is the client's trace context from params._meta (SEP-414) or
	// the context; zero when there is none.
	Trace TraceContext
}

// DecisionEvent is the Guard's decision on one request.
type DecisionEvent struct {
	// Outcome is ALLOW, ALLOW_MONITOR, BLOCK, ASK (an ask sent to the
	// client by elicitation, answered on a later request), RATE_LIMITED or
	// PROTECTED_PATH.
	Outcome string
	Code    int // the JSON-RPC error code sent, 0 when the request goes on
	Method  string
	// Tool is the normalized tool name (redacted when the call was denied
	// and the name held a secret). Registered says whether the server has
	// a tool of that name (as the dispatch stage found it in the server's
	// listing, or for a call refused before that stage as last read): only
	// then is the name from a bounded set.
	Tool       string
	Registered bool
	Agent      string
	// Stage is the step that decided: a tools/call stage of doc.go's table
	// ("policy", "rate", "budget", "answer", ...; "policy" for a call that
	// went through without an ask, "answer" for one a human approved), or
	// for other requests "method", "paths", "decode", "audit" (the log
	// could not record the request) or "recover" (a panic).
	Stage string
	// Rule is the policy rule that decided ("rules[2]", an ACP rule's id)
	// or the failed rule (an allow_args pattern, a QWED limit code), when
	// there is one.
	Rule    string
	Latency time.Duration // from the request's arrival to the decision
}

// AskEvent is one answered ask.
type AskEvent struct {
	// Channel is "asker" (Options.Ask), "elicitation" (AddTool's form) or
	// "passkey" (SEP-2672 verified approval).
	Channel string
	Tool    string
	Agent   string
	// Answer is "approved", "denied" or "timeout".
	Answer string
	// Duration is the wait for the answer: the Asker's, the passkey
	// check's, or for elicitation the time since the question was signed
	// (on the Clock, 0 when the clock reads earlier than when it was signed).
	Duration time.Duration
}

// Directions of a RedactionEvent.
const (
	// RedactDownstream: a result, error or message on its way to the client.
	RedactDownstream = "downstream"
	// RedactUpstream: a call's arguments on their way to the audit log.
	RedactUpstream = "upstream"
)

// RedactionEvent is one DLP rule that fired in one message.
type RedactionEvent struct {
	Rule      string // the DLP rule's name
	Count     int    // matches redacted
	Direction string // RedactDownstream or RedactUpstream
	Method    string
	Tool      string // "" for messages that are not a tool's
}

// LimitEvent is a call refused by a limit.
type LimitEvent struct {
	// Kind is the stage that refused: "inflight", "rate", "policy" (an ACP
	// rule's own rate), "conversation", "budget" or "commit" (the budget
	// charge or the step's commit).
	Kind   string
	Tool   string
	Agent  string
	Code   int    // -32002 for rates and caps, -32001 for budgets and conversation guards
	Reason string // a QWED code (BUDGET_EXCEEDED, ...) when there is one, else ""
	// Registered says whether the server has a tool named Tool.
	Registered bool
}

// AuditWriteEvent is one write to Options.Audit.
type AuditWriteEvent struct {
	Decision string // the event's decision, "" for DLP events
	Event    string // the event's event field (DLP_TRIGGERED), "" for decisions
	Latency  time.Duration
	Err      error // nil when the event was written
}

// RequestEnd is a request's answer.
type RequestEnd struct {
	Method     string
	Tool       string // as in DecisionEvent
	Registered bool   // as in DecisionEvent
	// Code is the JSON-RPC error code of the answer, 0 for a result.
	// ToolError is a tools/call result with isError set.
	Code      int
	ToolError bool
	Duration  time.Duration
}

// NopObserver does nothing; embed it to implement only some methods.
type NopObserver struct{}

func (NopObserver) Start(ctx context.Context, _ RequestStart) context.Context { return ctx }
func (NopObserver) Decision(context.Context, DecisionEvent)                   {}
func (NopObserver) Ask(context.Context, AskEvent)                             {}
func (NopObserver) Redaction(context.Context, RedactionEvent)                 {}
func (NopObserver) Limit(context.Context, LimitEvent)                         {}
func (NopObserver) AuditWrite(context.Context, AuditWriteEvent)               {}
func (NopObserver) End(context.Context, RequestEnd)                           {}

var _ Observer = NopObserver{}
