// Package gatehouse puts authorization in front of every request of a Model
// Context Protocol server built on the go-sdk, in process, with one call:
//
//	p, _ := policy.Load("policy.yaml")
//	guard, _ := gatehouse.New(p, &gatehouse.Options{Audit: auditLog, Asker: human})
//	guard.Install(server) // before server.Run / Connect
//
// For every request the guard, in this order: recovers panics (deny, keep
// serving); authorizes the normalized method (AIP §4.2, -32006); checks
// the URI of resources/read and resources/subscribe and the arguments of
// prompts/get against the protected paths (-32007); for
// tools/call decodes the arguments (UseNumber; anything but a JSON object is
// -32602 and never forwarded), enforces the rule's rate limit per agent and
// tool (-32002), evaluates the policy (AIP §4.3), runs the conversation guard
// and budget when configured (QWED §6, §9), asks a human for "ask" decisions
// (-32004 denied, -32005 timed out), and only then calls the handler; then
// redacts secrets from every kind of result content (text, structured
// content, embedded resources and their blobs, resource links,
// resources/read, prompts/get and completion/complete results, and handler
// errors), hides tools the policy can never allow from tools/list, and
// writes one audit event per decision and per DLP redaction.
//
// Denials are JSON-RPC errors exactly as AIP §5.1 writes them (code,
// message, data.tool, data.reason), or, with Options.DenyAsToolResult, tool
// results with IsError set that a model can read.
//
// [AddTool] registers a tool whose "ask" decisions go to the user through MCP
// elicitation, with a signed request state, on both protocol versions go-sdk
// v1.8 speaks.
//
// # Identity
//
// The agent identity keys limits and budgets and is written to the audit
// log: "user:<id>" from the HTTP bearer token (Extra.TokenInfo.UserID) when
// present (exact, never case-folded; hashed when long or unprintable),
// else "client:<name>" from the client's self-declared info (normalized),
// else Options.DefaultAgent. Only the first is authenticated: a client can
// claim another's name, and with it its rate buckets, budget and trust
// level (so a hostile client can spend or degrade them). Put bearer-token
// auth in front of any server that several untrusted clients share.
//
// # Security
//
// Every failure on the decision path denies: a limiter, budget or
// conversation store that is down, an audit log that cannot be written, an
// asker that fails, a result that cannot be scanned, a panic. Reasons shown
// to the agent never contain a regex, an argument value or a secret.
//
// go-sdk clients turn the AIP code -32004 ("User denied") into a
// "connection closed" error on their side (the session stays usable); the
// code on the wire is still -32004, as AIP requires.
//
// With several replicas, give every Guard the same Options.ElicitKey and a
// shared Options.ElicitNonces (consent/redisnonce), so an elicitation
// approval verifies on any replica and still runs once.
//
// # Concurrency
//
// A Guard is safe for concurrent use and may be installed on many servers.
package gatehouse
