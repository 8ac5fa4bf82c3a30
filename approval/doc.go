// Package approval implements SEP-2672 per-call verified approval: a tool
// marked as requiring approval runs only when the call carries a WebAuthn
// assertion, made by a passkey the user enrolled, over a challenge that
// binds the exact tool name, arguments and server.
//
// The package is the core and knows nothing of MCP or HTTP:
//
//   - [ActionHash] is the §4.6 hash of (tool, RFC 8785 arguments, serverId).
//   - [Gate] runs enrollment ([Gate.BeginEnrollment], [Gate.FinishEnrollment],
//     §4.4.1-4.4.2), issues challenges ([Gate.CreateChallenge], §4.4.3:
//     nonce || actionHash, displayText from a per-tool describe function,
//     allowCredentials filtered by authenticatorClass per §4.7), and
//     verifies tools/call evidence in the 14 ordered steps of §4.8
//     ([Gate.Verify]).
//   - Every rejection is an [*Error] carrying one of the sixteen §4.10
//     [Reason]s, with a sentinel per reason for errors.Is.
//   - [ChallengeStore] and [CredentialStore] hold state: in memory
//     ([MemoryChallengeStore], [MemoryCredentialStore], bounded), in a file
//     ([FileCredentialStore], atomic rename) or in Redis (package
//     approval/redisstore). Package approval/storetest is their conformance
//     kit.
//
// Related packages: approval/approvalmcp serves a Gate over MCP (the three
// methods, the tool annotation, the capability, evidence on tools/call,
// -32001 errors); approval/approvalclient is the go-sdk client helper;
// approval/approvaltest is a software authenticator for tests;
// approval/ceremony runs the WebAuthn ceremony in a browser page.
//
// # Security
//
// Threat model (SEP-2672 §8.1): the MCP client or the agent driving it may
// be compromised or prompt-injected; it must not be able to run an
// approval-gated tool without a fresh user gesture on an enrolled
// authenticator for exactly that call. Invariants:
//
//   - Fail closed: [Gate.Verify] returns a nil error only after all 14
//     steps pass; every other outcome, store outages included (wrapping
//     [ErrUnavailable]), is a denial with a §4.10 reason.
//   - Verify before consume: steps 1-12 never change state, so a forged or
//     mismatched submission cannot burn a valid challenge; consumption (13)
//     is one atomic store operation, so of any number of concurrent
//     submissions of one evidence exactly one succeeds, across replicas
//     sharing a store. The counter is stored last (14), compare-and-set.
//   - Argument binding: the action hash is recomputed from the arguments as
//     received and compared in constant time; no defaults or coercion.
//     Arguments JCS cannot represent exactly (duplicate keys, invalid
//     UTF-8, numbers beyond IEEE-754 double precision) are refused, so two
//     different calls can never share a hash.
//   - A challenge is bound to the user it was issued to; another user's
//     submission reads as challenge_unknown.
//   - User verification is required at enrollment and at every assertion;
//     re-enrollment of a credential ID (for any user) is refused after
//     verification and before persisting (credential_already_enrolled).
//   - serverId must be configured and unique: [ValidateServerID] refuses
//     empty values and well-known constants (§4.6).
//   - go-webauthn's strictness on client extension outputs is kept: the
//     Gate requests no extensions, so an assertion or registration that
//     reports any client extension output is rejected. Browsers report only
//     requested extensions; a client that adds outputs is refused.
//   - Bounded memory: challenges are capped in total (MaxChallenges) and
//     per user while pending (MaxPendingPerUser, 64 by default, so one user
//     cannot exhaust the store for others), and reaped after ExpiresAt plus
//     Retention; credentials are capped per user and
//     in total; arguments and evidence have size limits. Rate-limit
//     approval/challenge/create per user (package ratelimit) as well.
//   - displayText shows every character signed for: runes that render as
//     nothing or reorder their neighbours (bidi overrides, zero-width
//     characters) appear as \uXXXX escapes; [DefaultDescribe] shows every
//     argument name with values cut one by one (the hidden bytes stated).
//   - The arguments hashed, shown and run are one reading: [ActionHash]
//     refuses objects, at any depth, with member names equal under case
//     folding ({"path":…,"PATH":…}), and a Describe function must decode
//     with [DecodeArguments], which reads exactly what go-sdk's handler
//     reads, never with encoding/json (case-insensitive, last one wins).
//   - Errors never contain keys, signatures, or argument values.
//
// The transports stored at enrollment are what the client reported; they
// are not signed. authenticatorClass filtering (§4.7) therefore steers
// honest clients to the right authenticator but proves nothing about the
// authenticator's kind; an attestation ("packed") with its AAGUID is what
// names the model, and the Gate records both without judging them.
//
// Residual risks are those of SEP-2672 §8.3: display tampering on synced
// credentials, counter-zero credentials (no clone detection), and schema
// defaults applied by tools after verification: keep security-relevant
// fields required in the input schemas of approval-gated tools. (The
// gatehouse Guard refuses approval/challenge/create for arguments that
// the tool's input schema would complete, naming them, so that the user
// sees every value that runs; a Gate used without it does not.)
//
// A counter race: when one credential approves two different calls at
// once, both may pass step 11 against the same stored counter; the lower
// one then fails at step 14 after its challenge was consumed, and the user
// approves again. A replayed evidence racing its own first use may likewise
// be refused as signature_counter_regression instead of challenge_consumed.
//
// # Concurrency
//
// A [Gate] and the stores of this package are safe for concurrent use and
// start no goroutines. Time comes from Options.Now.
//
// # Usage
//
//	gate, err := approval.New(approval.Config{
//		ServerID: "https://mcp.acme.dev/mcp", RPID: "acme.dev", Origins: []string{"https://acme.dev"},
//	}, nil)
//	_ = gate.Require("delete_file", approval.ToolPolicy{Describe: func(_ string, args json.RawMessage) (string, error) {
//		var a struct{ Path string `json:"path"` }
//		if err := approval.DecodeArguments(args, &a); err != nil { // as the handler decodes
//			return "", err
//		}
//		return "Delete the file " + strconv.Quote(a.Path), nil
//	}})
//
//	// approval/enroll/begin and /finish, for the authenticated user:
//	begin, _ := gate.BeginEnrollment(ctx, user)
//	done, err := gate.FinishEnrollment(ctx, user, registrationResponseJSON)
//
//	// approval/challenge/create:
//	ch, err := gate.CreateChallenge(ctx, user, "delete_file", rawArgs)
//
//	// tools/call:
//	if _, err := gate.Verify(ctx, user, approval.Call{Tool: name, Arguments: rawArgs, Evidence: rawEvidence}); err != nil {
//		// deny with -32001 and data.reason = err.(*approval.Error).Reason; do not run the tool
//	}
package approval
