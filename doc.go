// Package gatehouse puts authorization in front of every request of a Model
// Context Protocol server built on the go-sdk, in process, with one call:
//
//	p, _ := policy.Load("policy.yaml")
//	guard, _ := gatehouse.New(p, &gatehouse.Options{Audit: auditLog, DenyAsToolResult: true})
//	guard.Install(server) // last, after your own middleware; before server.Run
//
// # The pipeline
//
// Every request first passes method authorization on its normalized method
// (AIP §4.2, -32006); panics anywhere are recovered and deny. A request
// other than tools/call then has the paths it can name checked against the
// protected paths (resources/read and resources/subscribe URIs, prompts/get
// arguments, completion/complete values: -32007), is audited, handled, and
// its result filtered (DLP; tools/list hides tools the policy can never
// allow; initialize and server/discover advertise only the capabilities
// whose methods the policy allows).
//
// A tools/call runs these stages, in this order, each of which may refuse
// the call; a feature that is not configured has no stage:
//
//	decode        arguments at most MaxArgumentBytes, decoded with UseNumber; anything else is -32602
//	scope         the bearer token's OAuth scopes cover the call's (package scope; -32001); short of them, a call refused anyway (policy, listing, collision, pin, trust, an unanswerable ask) gets that refusal
//	inflight      the in-flight caps per agent, tool and in all (-32002 at once, never queued)
//	rate          the AIP rule's rate limit, per agent and tool (-32002)
//	policy        the policy's decision (AIP §4.3, ACP rules and their rate limits)
//	dispatch      the exact name go-sdk dispatches is the only tool of its normalized name
//	pin           the tool's definition is the one pinned (-32013 when it changed)
//	trust         trust levels (QWED §8): suspended agents refused, risky calls asked
//	conversation  the conversation step reserved (QWED §9)
//	budget        the budget checked (QWED §6)
//	answer        an ask answered, in one switch: a live grant, passkey, elicitation, Asker, or denied
//	commit        the step committed, then the budget charged, then the decision audited
//
// Then the handler runs, bounded by Options.HandlerTimeout; its result is
// bounded by Options.MaxResultBytes before it is redacted; each redaction is
// audited. A pinned call whose tool's definition changes while the server
// waits for the client (go-sdk's server-side elicitation dispatches the call
// again by name) is withdrawn with -32013. The handlers of resources/read,
// prompts/get and completion/complete get the same two bounds. One deferred undo releases the step of a call that did not
// commit, so a denied call consumes nothing (QWED §9.4-9.5). A tool
// registered with [AddTool] runs the same commit once its user has answered
// through elicitation.
//
// Denials are JSON-RPC errors exactly as AIP §5.1 writes them (code,
// message, data.tool, data.reason), or, with Options.DenyAsToolResult, tool
// results with IsError set that a model can read.
//
// # Observability
//
// Options.Observer receives every decision (with the stage that decided),
// ask, redaction, limit hit and audit write, with the request's context;
// the module github.com/gatehouse-dev/gatehouse/otel turns them into
// OpenTelemetry spans and metrics. A traceparent in a request's
// params._meta (SEP-414), or a [TraceContext] in its context, gives its
// trace: every audit event of the request carries its trace and span ids
// inside the hash chain. Log calls pass the request's context to the
// slog.Logger. A trace id is the client's assertion, for correlation only.
//
// # Identity
//
// The agent identity keys limits and budgets and is written to the audit
// log: "user:<id>" from the HTTP bearer token (Extra.TokenInfo.UserID) when
// present (exact, never case-folded; hashed when long or unprintable),
// else "client:<name>" from the client's self-declared info (per request on
// protocol 2026-07-28, from initialize before; normalized), else
// Options.DefaultAgent. Only the first is authenticated: a client can claim
// another's name, and with it its rate buckets, budget and trust level (so
// a hostile client can spend or degrade them). Put bearer-token auth in
// front of any server that several untrusted clients share.
//
// # Security
//
// Every failure on the decision path denies: a limiter, budget or
// conversation store that is down, an audit log that cannot be written, an
// asker that fails, a result that cannot be scanned, a handler that does not
// finish, a panic. Reasons shown to the agent never contain a regex, an
// argument value or a secret. Secrets are redacted by default (the
// built-in DLP pack plus the policy's patterns) from results, handler
// errors, the elicitation question and the arguments written to the audit
// log; DLPOptions.Off is the only way to turn that off.
//
// The policy authorizes normalized names while go-sdk dispatches exact
// ones, so two tools whose names normalize alike could be authorized as one
// and run as the other: Install refuses such a server, and a colliding tool
// added later is found by the first call to it, and calls to either are
// denied.
//
// A tool's definition is pinned by its digest ([ToolDigest]) when the
// Guard first sees it; a call to a tool whose definition changed since is
// refused with [CodeDefinitionChanged] (-32013) until the author accepts
// the new digest ([Guard.AcceptDefinition], [PinOptions]), and approvals
// given for the old definition stay void. tools/list shows such a tool
// with a notice instead of its changed text. Options.AnnotationDefaults
// decides tools the policy does not mention by the server's own
// readOnlyHint; the pin keeps those annotations from changing unnoticed.
//
// go-sdk clients turn the AIP code -32004 ("User denied") into a
// "connection closed" error on their side (the session stays usable); the
// code on the wire is still -32004, as AIP requires.
//
// With several replicas, give every Guard the same ElicitOptions.Key and a
// shared ElicitOptions.Nonces (consent/redisnonce), so an elicitation
// approval verifies on any replica and still runs once.
//
// # Concurrency
//
// A Guard is safe for concurrent use and may be installed on many servers.
package gatehouse
