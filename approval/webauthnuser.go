package approval

import (
	"encoding/base64"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// waUser adapts a User and its credentials to go-webauthn.
type waUser struct {
	u     User
	creds []webauthn.Credential
}

func (w *waUser) WebAuthnID() []byte { return w.u.Handle }
func (w *waUser) WebAuthnName() string {
	if w.u.Name != "" {
		return w.u.Name
	}
	return b64(w.u.Handle)
}
func (w *waUser) WebAuthnDisplayName() string {
	if w.u.DisplayName != "" {
		return w.u.DisplayName
	}
	return w.WebAuthnName()
}
func (w *waUser) WebAuthnCredentials() []webauthn.Credential { return w.creds }

var _ webauthn.User = (*waUser)(nil)

func toWebAuthn(c *Credential) webauthn.Credential {
	ts := make([]protocol.AuthenticatorTransport, len(c.Transports))
	for i, t := range c.Transports {
		ts[i] = protocol.AuthenticatorTransport(t)
	}
	return webauthn.Credential{
		ID: c.ID, PublicKey: c.PublicKey, AttestationFormat: c.AttestationFormat, Transport: ts,
		Flags: webauthn.CredentialFlags{
			UserPresent: true, UserVerified: c.UserVerified,
			BackupEligible: c.BackupEligible, BackupState: c.BackupState,
		},
		Authenticator: webauthn.Authenticator{AAGUID: c.AAGUID, SignCount: c.SignCount},
	}
}

func descriptor(c *Credential) protocol.CredentialDescriptor {
	d := protocol.CredentialDescriptor{Type: protocol.PublicKeyCredentialType, CredentialID: c.ID}
	for _, t := range c.Transports {
		d.Transport = append(d.Transport, protocol.AuthenticatorTransport(t))
	}
	return d
}

// Eligible reports whether a credential with the given stored transports
// satisfies class (SEP-2672 §4.7): platform accepts any credential;
// cross-platform (and "") requires at least one of hybrid, usb, nfc, ble, so
// ["internal"] and an empty list are excluded.
func Eligible(class Class, transports []string) bool {
	if class == ClassPlatform {
		return true
	}
	for _, t := range transports {
		switch t {
		case "hybrid", "usb", "nfc", "ble":
			return true
		}
	}
	return false
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
