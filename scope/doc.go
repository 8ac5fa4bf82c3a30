// Package scope decides which OAuth scopes a tool call needs: per tool, and
// per argument pattern where a tool's risk depends on its arguments
// (deploy with env "prod" needs deploy:prod). The root package enforces it
// on the bearer token's scopes (go-sdk auth.TokenInfo.Scopes), answers
// streamable-HTTP clients with an RFC 6750 insufficient_scope challenge,
// and filters tools/list; this package is pure: no I/O after parsing, no
// clock, no JSON-RPC.
//
// # Semantics
//
// Tool names are exact, compared after normalize.Name; a '*' in one is
// refused ([ErrToolName]): it would match no tool, and the tools it was
// meant for would need only the default.
//
// A [Requirement] is "all" (every listed scope) or "any" (at least one).
// A call needs the tool's own requirement (or, when the tool sets none or
// is not named, the document's default; no default means no scope) AND
// the requirement of every [When] whose argument patterns all match: the
// requirements add up, so a when can only make a call need more, never
// less. Scopes compare exactly (RFC 6749 §3.3: case-sensitive). For a
// challenge, [Decision.Required] lists every scope the call needs: each
// scope of an "all"; of an "any", the one the token has, else its first
// alternative.
//
// An argument pattern names a top-level argument and one or more value
// patterns. Names and values compare after normalize.Name (NFKC, case
// folding, invisible characters removed, trimmed), '*' matches any run of
// characters, and a value matches when any string, number (as written,
// or as the float64 it decodes to: -0 and 0.0 match "0", 1e2 matches
// "100"), boolean or object key anywhere inside the argument matches. Every
// member is read, duplicates included, so {"env":"dev","ENV":"prod"}
// needs deploy:prod. Matching is deliberately broad: a broader match
// can only ask for more scope.
//
// # Document
//
//	apiVersion: gatehouse.dev/v1alpha1
//	kind: ToolScopes
//	default:            # tools without a requirement of their own; optional
//	  any: [mcp:tools]
//	tools:
//	  - name: read_file
//	    any: [files:read, files:write]
//	  - name: deploy
//	    all: [deploy:write]
//	    when:
//	      - args: {env: prod}        # a pattern or a list of patterns
//	        all: [deploy:prod]
//
// [Parse] is strict and reports line and column: unknown fields, a scope
// that is not an RFC 6749 scope-token, an empty scope list, a tool named
// twice (also under normalization), an argument named twice in one when,
// a requirement with both all and any, duplicate keys, aliases, several
// documents.
//
// # Security
//
// The policy is only as good as the token's scopes: the token must come
// from a verifier the server trusts (go-sdk auth.RequireBearerToken). A
// call without a token has no scopes and is refused by every
// requirement. Argument matching is defence in depth for risk that lives
// in arguments; it reads the same bytes the handler decodes, every member
// of them.
//
// # Concurrency
//
// A [*Policy] is immutable and safe for concurrent use.
package scope
