// Package consent asks a human before an agent's tool call runs, and turns
// the answer into a signed, single-use, time-limited proof: the Agent
// Consent Protocol (ACP v0.2).
//
// The parts, each usable alone:
//
//   - Messages (ACP §4): [ConsentRequest] with a random id and a nonce made
//     with the request, [ConsentResponse] with its [Proof].
//   - Proofs (ACP §6): a [Signer] signs the JCS payload of [SigningPayload]
//     with Ed25519; a [Verifier] checks the signature against trusted
//     keys, the nonce, the expiry and that the call about to run is the
//     call approved, then consumes the nonce in a [NonceStore]
//     ([MemoryNonceStore], or consent/redisnonce across replicas). Private
//     keys are stored encrypted (consent/vault's WritePrivateKey: scrypt,
//     AES-256-GCM, mode 0600).
//   - Channels (ACP §2.4) behind [Channel]: consent/terminal,
//     consent/webhook and consent/telegram, and MCP elicitation in
//     consent/elicitation;
//     consent/consenttest checks any implementation.
//   - [Asker] ties them together: the root middleware calls
//     [Asker.Ask] with a [Request] and runs the call only when the
//     [Answer] is Approved, with Answer.Args.
//   - Classification (ACP §5.5) is the policy package's: policy.Classify
//     and policy.Classifier give the [Request] its category and risk.
//   - Trust levels (QWED-Agent §8) live in package trust.
//   - The credential vault (ACP §2.3), key files and the scrubbing of
//     injected secrets live in package consent/vault; a vault injects
//     secrets only with the [Grant] of an approved consent for that call.
//
// Audit events (consent_requested, consent_approved, consent_denied,
// consent_expired, credential_injected; ACP §7.3) go to an [EventFunc] that
// the root package connects to the audit log.
//
// # Security
//
// Everything that is not a verified approval denies: a timeout, a channel
// failure, a forged or unauthenticated reply, a refused proof, a replayed
// nonce, a store or audit failure. [Asker.Ask] returns an approval only
// after verifying its own proof, so a bug or tampering between signing and
// running shows up as a refusal. The zero [Outcome] is a denial.
//
// What the proof covers: the request id and nonce (random, made with the
// request), the SHA-256 of the JCS of the request's parameters, the
// SHA-256 of the whole request ([RequestHash]: tool, server, parameters,
// agent, expiry, policy rule; a proof presented with any other request is
// [ErrRequestMismatch]), the decision, who decided and who vouches for it
// (approver id, approver channel and [Attestation]: "human" when the
// channel authenticated the human, "client" for an MCP client's word such
// as an elicitation answer), the SHA-256 of the human's modifications, the
// decision time, valid_until, single_use and the scope the human chose
// (a remembered approval is signed as such, not as one call's). Nothing of a response that
// verifies can be changed: ACP §6.2 leaves approver.id and
// conditions.single_use unsigned; this package signs them.
// An approval with modifications runs the modified parameters only;
// running anything else fails with [ErrActionMismatch]. Hashes use
// gatehouse's one canonical form (internal/jcs), shared with approval and
// the loop fingerprint: parameters with member names equal under case
// folding, or numbers a double cannot hold, are refused.
//
// The approval channel must be out of the agent's reach (ACP §9 item 7):
// the terminal refuses a TTY that is the process's stdin or stdout and
// discards input typed before its prompt; webhook replies and callbacks
// need an HMAC-SHA256 signature under a shared secret, a fresh timestamp,
// and the request's id and nonce; Telegram presses count only from the
// configured chat, approvers and message. Channels show the call through
// one renderer ([Summary], [Prompt]): every argument name, values cut one
// by one with the hidden bytes stated, control and invisible characters
// escaped, the names of the secrets the call would receive; a call that
// cannot be shown that way is not asked about. An elicitation answer is the
// client's word: it is signed and logged as client-attested, and
// AskerOptions.RequireHuman refuses it. Secrets (webhook secret, bot token, vault values,
// private keys) appear in no error, event or printed value: see [Secret].
// MAC, hash and nonce comparisons are constant time.
//
// Memory is bounded wherever input decides it, per agent where an agent
// could crowd out others: asks per agent and window
// (AskerOptions.MaxAsksPerAgent), nonces per agent ([ScopedNonceStore]),
// nonce stores (expired entries are swept), pending webhook requests,
// hashed and shown parameter sizes.
//
// # Concurrency
//
// Every exported type is safe for concurrent use unless its doc says
// otherwise. Nothing starts goroutines: channels wait on the caller's
// goroutine, and the Telegram channel shares one getUpdates poll among
// concurrent requests.
//
// # Usage
//
//	priv, _ := keys.ReadPrivateKey("/etc/gatehouse/consent.key", passphrase) // from `gatehouse keygen`
//	signer, _ := consent.NewSigner(priv) // or any crypto.Signer with an Ed25519 key (KMS, HSM)
//	nonces, _ := consent.NewMemoryNonceStore(nil)
//	ch, _ := terminal.New(nil) // prompts on /dev/tty
//	asker, _ := consent.NewAsker(ch, signer, nonces, &consent.AskerOptions{OnEvent: auditEvent})
//
//	ans, err := asker.Ask(ctx, consent.Request{Tool: "send_email", Args: args, Agent: consent.Agent{ID: "bot"}})
//	if err != nil || !ans.Approved() {
//		// deny: ans.Outcome says denied, expired or failed
//	}
//	args, err = vault.Inject(ctx, ans.Grant, "send_email", ans.Args) // only if the call uses secrets
package consent
