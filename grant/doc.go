// Package grant remembers human approvals for a bounded scope, so that a
// user who approved `deploy {env: staging}` is not asked again for the
// next three calls in fifteen minutes, while everything else still asks.
//
// A [Grant] is bound to a principal (an authenticated user, or the one
// local user of a transport-authenticated server), the tool's exact name
// (the one go-sdk dispatches, not a normalized spelling), the digest of the
// tool's definition (a changed description or schema voids it), the
// argument names and their constraints (exact canonical values, or the
// policy rule's allow_args patterns), and optionally the MCP session. The
// server author offers [Scope]s per tool; the human picks one when
// approving; [Once] (no grant) is the default.
//
// Stores: [MemoryStore] for one process, grant/redisgrant for replicas
// sharing Redis. grant/granttest checks any Store against the contract.
//
// # Security
//
// A grant never widens a policy: the guard looks one up only for a call the
// policy decided to ask about, after every check that refuses (blocked
// tools, protected paths, limits). Arguments are compared in gatehouse's
// one strict canonical form ([CanonicalArgs]): duplicate names, names equal
// under case folding and rounded numbers never match. Consume is atomic:
// a grant of N uses lets exactly N calls through. Memory is bounded per
// principal ([MemoryOptions.MaxPerPrincipal]) and in total; a principal at
// its cap gets ErrCapacity (the approval then covers one call) rather than
// losing a grant it holds. Any store error means no grant: the call is
// asked, never allowed by assumption.
//
// # Concurrency
//
// Grants are values. Stores are safe for concurrent use and start no
// goroutines; expiry is evaluated against the time the caller passes.
//
//	st, _ := grant.NewMemoryStore(nil)
//	g, _ := grant.New(scope, grant.Binding{Principal: "user:alice", Tool: "deploy", Digest: d}, args, nil, grant.AttestedHuman, now)
//	_, _ = st.Create(ctx, g, now)
//	use, err := st.Consume(ctx, grant.Query{Principal: "user:alice", Tool: "deploy", Digest: d, Args: args}, now)
package grant
