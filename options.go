package gatehouse

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// Defaults for the bounds every Guard applies.
const (
	// DefaultAskTimeout is how long a call waits for a human by default.
	DefaultAskTimeout = 60 * time.Second
	// DefaultHandlerTimeout bounds one tool handler (Options.HandlerTimeout).
	DefaultHandlerTimeout = 5 * time.Minute
	// DefaultMaxResultBytes bounds one result before it is redacted
	// (Options.MaxResultBytes).
	DefaultMaxResultBytes = 16 << 20
	// DefaultMaxArgumentBytes bounds the arguments of one tools/call
	// (Options.MaxArgumentBytes).
	DefaultMaxArgumentBytes = 4 << 20
)

// Options configure a [Guard]. A nil *Options means the defaults; New copies
// and validates it.
//
// Features are grouped: a nil group means the feature is off (no budget, no
// asker, no passkeys, no trust levels), with one exception that is safe by
// default: DLP is on when its group is nil (the built-in rule pack plus the
// policy's patterns, applied to results, errors and the arguments written to
// the audit log), and only DLPOptions.Off turns it off.
type Options struct {
	// DefaultAgent is the agent identity when neither a bearer token nor the
	// client's info names one. Default "anonymous". It must not have the
	// form of an authenticated user's identity ("user:<id>", which owns
	// passkeys and grants): New refuses it.
	DefaultAgent string
	// ServerName is this server's name for ACP rules' match.server, for
	// the human asked and for what an approval binds; "" means the name
	// each MCP server the Guard is installed on gives itself
	// (mcp.Implementation.Name).
	ServerName string

	Limits      *LimitOptions
	Ask         *AskOptions
	Elicitation *ElicitOptions
	Approval    *ApprovalOptions
	Trust       *TrustOptions
	DLP         *DLPOptions
	Grants      *GrantOptions
	Scopes      *ScopeOptions
	// Pins configure tool-definition pinning, which is on when nil
	// (pinning.go): a call to a tool whose definition changed since it was
	// pinned is refused with CodeDefinitionChanged (-32013).
	Pins *PinOptions

	// Audit, when set, receives one event per decision (upstream) and one
	// per DLP redaction (downstream): an *audit.Writer (the hash-chained
	// file), or any audit.Sink (audit.Tee sends to several). A failed audit
	// write denies the call. Events carry the request's trace and span ids
	// (TraceContext).
	// Arguments are redacted with the Guard's scanner before they are
	// written; set audit.Options.HashArgs on the Writer to log per-argument
	// hashes instead of values.
	Audit audit.Sink

	// Observer, when set, receives every decision, ask, redaction, limit
	// hit and audit write with the request's context (the module
	// github.com/gatehouse-dev/gatehouse/otel has one for OpenTelemetry).
	// nil costs nothing.
	Observer Observer

	// HandlerTimeout bounds one tool handler, and one handler of
	// resources/read, prompts/get or completion/complete: after it the call
	// is answered with -32603, audited, and the handler's context ends as under
	// context.WithTimeout (Err context.DeadlineExceeded, for the contexts
	// it derived too). 0 means DefaultHandlerTimeout.
	HandlerTimeout time.Duration
	// MaxResultBytes bounds a result before it is redacted (the sum of its
	// strings and data): a larger one is withheld with -32603, audited. 0
	// means DefaultMaxResultBytes.
	MaxResultBytes int
	// MaxArgumentBytes bounds the arguments of a tools/call as received
	// (their JSON): larger ones are refused with -32602, audited without
	// them, before anything reads them. The protected-path check parses
	// every string argument as shell (about half a microsecond a byte),
	// before HandlerTimeout runs, so without a bound one call's arguments
	// buy seconds of CPU. 0 means DefaultMaxArgumentBytes.
	MaxArgumentBytes int

	// DenyAsToolResult returns tools/call denials as a CallToolResult with
	// IsError set and the reason as text, instead of a JSON-RPC error: most
	// clients show their user and model only a JSON-RPC error's message
	// ("Forbidden"), while a tool result's text reaches the model, which then
	// knows why. Other methods still get JSON-RPC errors.
	DenyAsToolResult bool
	// PathArgs declares, per tool (keyed by the exact name go-sdk
	// dispatches), which arguments hold file paths, which the tool joins, and
	// the directory it resolves relative paths against, so that the
	// protected-path check reads them as the tool does. Tools without a
	// declaration are checked as policy.PathArgs says.
	PathArgs map[string]policy.PathArgs

	// ShowAllTools lists every tool in tools/list; by default tools the
	// policy can never allow are hidden (calls to them are denied either way).
	ShowAllTools bool

	// AnnotationDefaults decides calls to tools the policy does not
	// mention (annotations.go): allowed when the server's own definition
	// says readOnlyHint: true (asked when it has arguments and the policy
	// sets strict_args_default), asked otherwise. Off by default.
	AnnotationDefaults bool

	// Logger receives operational messages (panics recovered, audit and
	// store failures, methods denied by name). nil discards them. Secrets and
	// argument values are never logged.
	Logger *slog.Logger
	// Clock is the time source (ask deadlines, elicitation state). nil: time.Now.
	Clock func() time.Time
}

// LimitOptions configure rate limits, budgets and conversation guards.
type LimitOptions struct {
	// RateStore holds the token buckets of the policy's rate_limit rules,
	// keyed per agent and tool. nil means in memory (one process); use a
	// Redis store for replicas. Rate limits apply whether or not
	// Options.Limits is set.
	RateStore ratelimit.RateStore
	// Budget, when set, is checked before and charged after every approved
	// tools/call (QWED §6, §9.5), keyed by agent.
	Budget *ratelimit.Budget
	// Usage prices a call for Budget (which it needs). nil: every call
	// costs one request.
	Usage func(c Call) ratelimit.Usage
	// Conversations, when set, enforces QWED §9 conversation context on every
	// tools/call: params._meta must carry conversation_id and step_number.
	Conversations *ratelimit.Guard
	// InFlight caps the tools/calls in flight per agent, per tool and in
	// total; a call over a cap is refused at once with -32002 and a reason
	// naming the cap. A handler abandoned after HandlerTimeout counts until
	// it returns. nil: ratelimit's defaults (64 per agent, 256 per tool,
	// 1,024 in all), which apply whether or not Options.Limits is set.
	InFlight *ratelimit.InFlightOptions
}

// AskOptions configure how "ask" decisions reach a human.
type AskOptions struct {
	// Asker is asked when a rule says ask, unless the tool requires a passkey
	// or was registered with AddTool and the client can elicit. Required.
	Asker Asker
	// Timeout bounds the wait for an answer (-32005 after it). Default
	// DefaultAskTimeout; it must be shorter than the conversation guard's
	// reservation lifetime, which holds the step while the human decides.
	Timeout time.Duration
}

// ElicitOptions configure the signed state of AddTool's elicitation round
// trip. nil: a random key per Guard and used approvals remembered in its
// memory, so approvals do not survive a restart or cross replicas.
type ElicitOptions struct {
	// Key signs the request state (HMAC-SHA256), at least 32 bytes; set the
	// same key on every replica.
	Key []byte
	// Nonces remembers used approvals so each runs once: consent/redisnonce,
	// with one Key, on every replica. nil: in this Guard's memory.
	Nonces consent.NonceStore
}

// ApprovalOptions configure SEP-2672 verified approval (passkeys).
type ApprovalOptions struct {
	// Server serves the approval/* methods (which then pass method
	// authorization without being listed, and are audited), the
	// extensions.verifiedApproval capability, and passkey evidence checks on
	// every call to a tool that requires it (approvalmcp.Server.Require);
	// such evidence also answers an ask rule. No challenge is issued for a
	// call the policy would refuse anyway. Required: an *approvalmcp.Server.
	Server Approver
	// ForUnauthenticated lets requests without a bearer-token identity enroll
	// and use passkeys, all as one user (LocalApprovalUserID), whatever client
	// name they declare. Set it only where the transport is the
	// authentication, such as a local stdio server.
	ForUnauthenticated bool
}

// TrustOptions configure QWED §8 trust levels: suspended agents are refused
// (and see no tools), allowed calls above the level's risk become asks, and
// violations degrade the level (§8.3).
type TrustOptions struct {
	// Store holds the levels: trust.NewMemoryStore for one process,
	// trust/redistrust for replicas. Required.
	Store trust.Store
	// Classifier gives tools their risk (default policy.Classify, the ACP
	// §5.5 table). An ACP rule's level takes precedence.
	Classifier *policy.Classifier
}

// DLPOptions configure secret redaction. A nil *DLPOptions means the
// built-in rule pack plus the policy's dlp patterns.
type DLPOptions struct {
	// Scanner replaces the default scanner.
	Scanner *dlp.Scanner
	// NoBuiltin leaves the built-in pack out of the default scanner: only
	// the policy's dlp patterns redact (nothing, when its dlp block is off
	// or has none).
	NoBuiltin bool
	// Off turns redaction off: results, errors and audited arguments go out
	// as the handler and the client wrote them.
	Off bool
}

// validate checks o for values and combinations that cannot be meant, and
// fills in the defaults. Each error names the fields involved.
func (o *Options) validate() error {
	if o.DefaultAgent == "" {
		o.DefaultAgent = "anonymous"
	}
	if strings.HasPrefix(o.DefaultAgent, "user:") {
		// "user:<id>" is the identity of a bearer token's user, who owns
		// passkeys and grants: a request without token or client name must
		// not become one (every anonymous request used that user's grants).
		return fmt.Errorf("gatehouse: Options.DefaultAgent %q has the form of an authenticated user's identity (\"user:<id>\"); choose a label without the \"user:\" prefix", o.DefaultAgent)
	}
	o.Audit = auditSink(o.Audit)
	if o.HandlerTimeout < 0 || o.MaxResultBytes < 0 || o.MaxArgumentBytes < 0 {
		return fmt.Errorf("gatehouse: Options.HandlerTimeout (%v), Options.MaxResultBytes (%d) and Options.MaxArgumentBytes (%d) must not be negative", o.HandlerTimeout, o.MaxResultBytes, o.MaxArgumentBytes)
	}
	if o.HandlerTimeout == 0 {
		o.HandlerTimeout = DefaultHandlerTimeout
	}
	if o.MaxResultBytes == 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.MaxArgumentBytes == 0 {
		o.MaxArgumentBytes = DefaultMaxArgumentBytes
	}
	return errors.Join(o.validateLimits(), o.validateAsk(), o.validateGroups(), o.validateGrants(), o.validateScopes())
}

func (o *Options) validateLimits() error {
	l := o.Limits
	if l == nil {
		return nil
	}
	if l.Usage != nil && l.Budget == nil {
		return errors.New("gatehouse: Options.Limits.Usage is set without Options.Limits.Budget: Usage prices calls for a budget")
	}
	return nil
}

func (o *Options) validateAsk() error {
	a := o.Ask
	if a == nil {
		return nil
	}
	if a.Asker == nil {
		return errors.New("gatehouse: Options.Ask is set without Options.Ask.Asker")
	}
	if a.Timeout < 0 {
		return fmt.Errorf("gatehouse: Options.Ask.Timeout %v is negative", a.Timeout)
	}
	var ttl time.Duration
	if l := o.Limits; l != nil && l.Conversations != nil {
		ttl = l.Conversations.ReservationTTL()
	}
	if a.Timeout == 0 {
		a.Timeout = DefaultAskTimeout
		if ttl > 0 && a.Timeout >= ttl {
			a.Timeout = ttl - ttl/10 // the default stays within the step's reservation
		}
	}
	if ttl > 0 {
		if a.Timeout >= ttl {
			return fmt.Errorf("gatehouse: Options.Ask.Timeout %v is not shorter than the reservation lifetime %v of Options.Limits.Conversations: a step would expire while the human decides (lower the timeout or raise ratelimit.GuardOptions.ReservationTTL)", a.Timeout, ttl)
		}
	}
	return nil
}

func (o *Options) validateGroups() error {
	var errs []error
	if o.Approval != nil && nilApprover(o.Approval.Server) {
		errs = append(errs, errors.New("gatehouse: Options.Approval is set without Options.Approval.Server"))
	}
	if o.Trust != nil && o.Trust.Store == nil {
		errs = append(errs, errors.New("gatehouse: Options.Trust is set without Options.Trust.Store"))
	}
	if e := o.Elicitation; e != nil && e.Key != nil && len(e.Key) < 32 {
		errs = append(errs, fmt.Errorf("gatehouse: Options.Elicitation.Key has %d bytes, want at least 32", len(e.Key)))
	}
	if d := o.DLP; d != nil && d.Off && (d.Scanner != nil || d.NoBuiltin) {
		errs = append(errs, errors.New("gatehouse: Options.DLP.Off is set with Options.DLP.Scanner or Options.DLP.NoBuiltin: choose one"))
	}
	for name, pa := range o.PathArgs {
		if err := pa.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("gatehouse: Options.PathArgs[%q]: %w", name, err))
		}
	}
	if d := o.DLP; d != nil && d.Scanner != nil && d.NoBuiltin {
		errs = append(errs, errors.New("gatehouse: Options.DLP.Scanner is set with Options.DLP.NoBuiltin: NoBuiltin applies to the default scanner only"))
	}
	return errors.Join(errs...)
}
