// Package keys reads and writes the Ed25519 key files gatehouse uses
// everywhere: the key that signs consent proofs ([consent.Signer]), the key
// that signs audit checkpoints, and the public keys that verify them
// ([consent.NewVerifier], audit.VerifyOptions.PublicKey, `gatehouse audit
// verify -pubkey`).
//
// There is one public-key format, in two spellings that every reader here
// accepts: PEM "PUBLIC KEY" (SubjectPublicKeyInfo, RFC 8410) and an OpenSSH
// authorized_keys line ("ssh-ed25519 AAAA... comment"). Private keys are PEM
// "PRIVATE KEY" (PKCS#8, RFC 8410, unencrypted) or "OPENSSH PRIVATE KEY"
// (OpenSSH's own format, optionally encrypted with a passphrase: bcrypt-pbkdf
// and AES-256-CTR, through golang.org/x/crypto/ssh). The older hex public-key
// files that consent/vault wrote are still read; nothing writes them now.
//
//	priv, err := keys.ReadPrivateKey("approver.key", passphrase) // nil passphrase for an unencrypted key
//	signer, err := consent.NewSigner(priv)
//	pub, err := keys.ReadPublicKey("approver.key.pub")
//
// `gatehouse keygen` writes such a pair.
//
// # Security
//
// Every function here fails closed with an error wrapping [ErrKey] (or
// [ErrPassphrase]): a key that is not Ed25519, a PEM block of the wrong
// type, trailing data after an authorized_keys line, an encrypted key
// without a passphrase and a wrong passphrase are refused, never guessed.
// [ReadPrivateKey] refuses a file that group or others may read, and
// [WritePrivateKey] creates files with mode 0600 and never overwrites one.
// Inputs are bounded ([MaxFileBytes]); the bcrypt cost of an encrypted
// OpenSSH key is bounded by x/crypto/ssh. Errors never contain key bytes or
// the passphrase.
//
// # Concurrency
//
// The functions are safe for concurrent use; they hold no state.
package keys
