package vault

import "errors"

// The vault's errors. Inject also returns consent.ErrNoConsent (no valid,
// unused Grant for these arguments) and consent.ErrAudit (the event
// callback failed); options and names it refuses wrap
// consent.ErrInvalidOptions and consent.ErrInvalidRequest.
var (
	// ErrKeyFile wraps failures reading or writing key and vault files:
	// wrong passphrase or master key, tampered file, unsafe permissions.
	ErrKeyFile = errors.New("vault: key file")
	// ErrUnknownSecret is returned by [Vault.Inject] when arguments
	// reference a secret the vault does not hold.
	ErrUnknownSecret = errors.New("vault: unknown secret")
	// ErrSecretNotAllowed is returned by [Vault.Inject] when arguments
	// refer to a secret that is not bound ([Vault.Bind]) to the call's
	// tool and server.
	ErrSecretNotAllowed = errors.New("vault: secret not allowed for this tool")
	// ErrSecretTooShort is returned by [Vault.Inject] when arguments refer
	// to a secret shorter than [MinInjectLen] bytes.
	ErrSecretTooShort = errors.New("vault: secret too short to be injected")
)

// clip bounds an untrusted string quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
