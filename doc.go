// Package gatehouse puts authorization in front of every tool call of a
// Model Context Protocol server, in process.
//
// The building blocks live in subpackages:
//
//   - [github.com/gatehouse-dev/gatehouse/policy]: AIP v1alpha1 AgentPolicy
//     parsing and a pure evaluator (allow / block / ask).
//   - [github.com/gatehouse-dev/gatehouse/normalize]: the name and path
//     normalization that no Unicode trick gets past.
//   - ratelimit, dlp and audit: rates and budgets, secret redaction, a
//     tamper-evident audit log.
//
// The middleware that wraps a go-sdk *mcp.Server with all of them is the
// subject of a later change; until then, call policy.Evaluate from your
// handlers or from a receiving middleware of your own.
package gatehouse
