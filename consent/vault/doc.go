// Package vault is the ACP credential vault (ACP §2.3): secrets encrypted
// at rest (AES-256-GCM under a key derived with HKDF from a master key,
// e.g. [MasterKeyFromSigningKey]), put into a tool call's arguments by
// [Vault.Inject] only with the consent.Grant of the human's approval of
// that very call and only for the tools and servers each secret is bound
// to ([Vault.Bind]); a [Scrubber] then removes the injected values, raw
// and encoded, from what the call returns. It also reads and writes the
// consent signer's Ed25519 key files in the one format of package keys
// (OpenSSH's passphrase-encrypted private key, PEM public key; the older
// scrypt JSON and hex files are still read): [WritePrivateKey],
// [ReadPrivateKey], [WritePublicKey], [ReadPublicKey].
//
// Tool parameters name a secret with [SecretRef] ("{{vault:NAME}}");
// consent.Summary lists the names a call would get.
//
// # Security
//
// Secret values never appear in errors, events (credential_injected
// carries the name only), String or GoString. Key and vault files are
// written atomically with mode 0600 and refused when others may read them.
// A Grant injects once.
//
// Scrubbing by value answers one question for whoever can make a tool echo
// a string: is this string a secret that was injected? The gatehouse root
// package scrubs every injected value from everything it sends, so an
// agent that guesses a value and calls any tool that echoes its input sees
// the guess redacted exactly when it is right. Store only secrets that
// cannot be guessed (API keys, random tokens); a PIN or a short password
// in a vault that injects into an agent's calls can be found by trying.
// Values shorter than [MinInjectLen] are not injected at all: scrubbed from
// everything, they would take common words out of every result.
//
// # Concurrency
//
// A Vault and a Scrubber are safe for concurrent use.
package vault
