package policy

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Outcome is what [Policy.Evaluate] decided for a request.
type Outcome uint8

// The outcomes of AIP §4.4. The zero value is Block, so a Decision that was
// never filled in denies.
const (
	Block         Outcome = iota // deny: -32001 Forbidden, or -32006 for a method
	Allow                        // forward the request
	Ask                          // forward only if a human approves (AIP §3.5.1)
	RateLimited                  // -32002; set by the caller's limiter, never by Evaluate
	ProtectedPath                // -32007: an argument names a protected path (AIP §3.4.5)
)

// String returns the AIP spelling: "BLOCK", "ALLOW", "ASK", "RATE_LIMITED",
// "PROTECTED_PATH".
func (o Outcome) String() string {
	switch o {
	case Allow:
		return "ALLOW"
	case Ask:
		return "ASK"
	case RateLimited:
		return "RATE_LIMITED"
	case ProtectedPath:
		return "PROTECTED_PATH"
	}
	return "BLOCK"
}

// JSON-RPC error codes of AIP §5.
const (
	CodeForbidden        = -32001
	CodeRateLimited      = -32002
	CodeUserDenied       = -32004
	CodeUserTimeout      = -32005
	CodeMethodNotAllowed = -32006
	CodeProtectedPath    = -32007
)

// JSON-RPC error messages of AIP §5, exactly as the spec spells them.
const (
	MessageForbidden        = "Forbidden"
	MessageRateLimited      = "Rate limit exceeded"
	MessageUserDenied       = "User denied"
	MessageUserTimeout      = "User approval timeout"
	MessageMethodNotAllowed = "Method not allowed"
	MessageProtectedPath    = "Access denied: protected path"
)

// Decision is the result of [Policy.Evaluate]: a value, never an error.
type Decision struct {
	Outcome   Outcome
	Violation bool   // a rule was triggered; true with Outcome Allow in monitor mode
	Code      int    // AIP §5 JSON-RPC code; 0 when the call goes through
	Message   string // AIP §5 message, "" when the call goes through
	// Reason is a human-readable explanation. It names the rule and the
	// argument involved but never contains a regex or an argument value.
	Reason string
	Method string // normalized method
	Tool   string // normalized tool name (tools/call only)
	// FailedArg is the argument that failed validation, if any.
	FailedArg string
	// FailedRule is the allow_args pattern that FailedArg failed (AIP §6.2
	// failed_rule): for the operator's audit log, never for the agent.
	FailedRule string

	// ACP rule lists only:
	Rule       string         // the rule that decided, "rules[2]" or "default_action"
	Risk       Risk           // the rule's level, else the tool's class risk
	AskTimeout time.Duration  // the rule's timeout for an ask, 0 if none
	Rate       ratelimit.Rate // the rule's rate_limit, checked by the caller after matching (ACP §5.2); zero if none
}

// Monitored reports whether the request goes through only because the
// policy is in monitor mode: the audit decision ALLOW_MONITOR (AIP §4.4).
func (d Decision) Monitored() bool { return d.Outcome == Allow && d.Violation }

// AuditDecision is the AIP §6.1 `decision` field for d: "ALLOW",
// "ALLOW_MONITOR", "BLOCK", "RATE_LIMITED" or "ASK". A protected-path denial
// is logged as "BLOCK" (its code, -32007, tells it apart).
func (d Decision) AuditDecision() string {
	switch {
	case d.Monitored():
		return "ALLOW_MONITOR"
	case d.Outcome == ProtectedPath:
		return "BLOCK"
	}
	return d.Outcome.String()
}

// RateLimitedDecision is the decision for a call refused by the caller's
// rate limiter (AIP §4.3 step 1). It is always enforced, in monitor mode too.
func RateLimitedDecision(method, tool string) Decision {
	return Decision{
		Outcome:   RateLimited,
		Violation: true,
		Code:      CodeRateLimited,
		Message:   MessageRateLimited,
		Reason:    "Rate limit exceeded for " + tool + ". Try again later.",
		Method:    method,
		Tool:      tool,
	}
}

// Denied turns an Ask decision into the decision for a human's refusal
// (AIP §5: -32004 "User denied") or, when timedOut, for an unanswered
// prompt (-32005 "User approval timeout", never -32004). Both are enforced
// in every mode.
func (d Decision) Denied(timedOut bool) Decision {
	d.Outcome, d.Violation = Block, true
	if timedOut {
		d.Code, d.Message, d.Reason = CodeUserTimeout, MessageUserTimeout, "User did not answer the approval prompt in time"
	} else {
		d.Code, d.Message, d.Reason = CodeUserDenied, MessageUserDenied, "User denied the call"
	}
	return d
}
