package approvaltest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
	"github.com/go-webauthn/webauthn/protocol/webauthncose"
)

// Attestation is the attestation statement format an Authenticator produces.
type Attestation string

const (
	// AttestationNone is the "none" format (the default).
	AttestationNone Attestation = "none"
	// AttestationPacked is "packed" self-attestation: the credential key
	// signs authenticatorData || SHA-256(clientDataJSON), without x5c.
	AttestationPacked Attestation = "packed"
)

// Counter is how the signature counter behaves.
type Counter int

const (
	// CounterIncrement counts up by one per signature, starting at 1 on
	// enrollment (the default).
	CounterIncrement Counter = iota
	// CounterZero always reports 0, like synced passkeys.
	CounterZero
)

// Options configure an Authenticator. nil means defaults; zero fields too.
type Options struct {
	Attestation Attestation // default AttestationNone
	// Transports reported at enrollment (default ["usb"]). Use
	// []string{"internal"} for a platform-only authenticator.
	Transports []string
	// NoUserVerification clears the UV flag, like a presence-only key.
	NoUserVerification bool
	Counter            Counter
	// BackupEligible sets the BE and BS flags, like a synced passkey.
	BackupEligible bool
	// IgnoreExcludeList makes Create ignore excludeCredentials, like a
	// client bypassing it (SEP-2672 §4.4.2 defense in depth).
	IgnoreExcludeList bool
	// CredentialID, when set, chooses the ID of new credentials (default
	// 32 random bytes). With a fixed ID, Create re-enrolls one credential.
	CredentialID func() []byte
}

// Authenticator is a software authenticator bound to one origin.
type Authenticator struct {
	origin string
	opts   Options

	mu      sync.Mutex
	creds   []*credential
	prompts []string
}

type credential struct {
	id     []byte
	rpID   string
	user   []byte
	key    *ecdsa.PrivateKey
	count  uint32
	cosePK []byte
}

// New returns an Authenticator whose ceremonies claim to run at origin, such
// as "https://example.test" (it must be one of the server's Config.Origins).
func New(origin string, opts *Options) *Authenticator {
	a := &Authenticator{origin: origin}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Attestation == "" {
		a.opts.Attestation = AttestationNone
	}
	if a.opts.Transports == nil {
		a.opts.Transports = []string{"usb"}
	}
	return a
}

// ErrNoCredential is returned by Get when no allowed credential is held,
// and by Create when an excluded one is (InvalidStateError in browsers).
var ErrNoCredential = errors.New("approvaltest: no matching credential")

// Prompts returns the displayText of every Get, in order.
func (a *Authenticator) Prompts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.prompts...)
}

// CredentialIDs returns the IDs of the credentials created so far.
func (a *Authenticator) CredentialIDs() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out [][]byte
	for _, c := range a.creds {
		out = append(out, append([]byte(nil), c.id...))
	}
	return out
}

// SetCounter sets the signature counter of credential id; the next
// assertion reports n+1 (CounterIncrement) or 0 (CounterZero).
func (a *Authenticator) SetCounter(id []byte, n uint32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.creds {
		if string(c.id) == string(id) {
			c.count = n
			return nil
		}
	}
	return ErrNoCredential
}

type creationOptions struct {
	RP        struct{ ID string } `json:"rp"`
	User      struct{ ID string } `json:"user"`
	Challenge string              `json:"challenge"`
	Exclude   []struct {
		ID string `json:"id"`
	} `json:"excludeCredentials"`
}

// Create answers PublicKeyCredentialCreationOptionsJSON with a
// RegistrationResponseJSON, as navigator.credentials.create would.
func (a *Authenticator) Create(_ context.Context, options json.RawMessage) (json.RawMessage, error) {
	var o creationOptions
	if err := json.Unmarshal(options, &o); err != nil {
		return nil, fmt.Errorf("approvaltest: creation options: %w", err)
	}
	user, err := b64d(o.User.ID)
	if err != nil || o.RP.ID == "" || o.Challenge == "" {
		return nil, errors.New("approvaltest: creation options lack rp.id, user.id or challenge")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.opts.IgnoreExcludeList {
		for _, ex := range o.Exclude {
			for _, c := range a.creds {
				if b64(c.id) == ex.ID {
					return nil, fmt.Errorf("%w: the authenticator holds an excluded credential", ErrNoCredential)
				}
			}
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 32)
	if a.opts.CredentialID != nil {
		id = a.opts.CredentialID()
	} else if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	raw := pub.Bytes() // 0x04 || X || Y
	cose, err := webauthncbor.Marshal(webauthncose.EC2PublicKeyData{
		PublicKeyData: webauthncose.PublicKeyData{KeyType: 2, Algorithm: -7},
		Curve:         1, XCoord: raw[1:33], YCoord: raw[33:65],
	})
	if err != nil {
		return nil, err
	}
	c := &credential{id: id, rpID: o.RP.ID, user: user, key: key, cosePK: cose}
	if a.opts.Counter == CounterIncrement {
		c.count = 1
	}
	clientData, _ := json.Marshal(map[string]any{
		"type": "webauthn.create", "challenge": o.Challenge, "origin": a.origin, "crossOrigin": false,
	})
	authData := a.authData(o.RP.ID, c.count, true)
	authData = append(authData, make([]byte, 16)...) // AAGUID: zero
	authData = binary.BigEndian.AppendUint16(authData, uint16(len(id)))
	authData = append(authData, id...)
	authData = append(authData, cose...)

	stmt := map[string]any{}
	if a.opts.Attestation == AttestationPacked {
		sig, err := sign(key, authData, clientData)
		if err != nil {
			return nil, err
		}
		stmt = map[string]any{"alg": int64(-7), "sig": sig}
	}
	attObj, err := webauthncbor.Marshal(map[string]any{"fmt": string(a.opts.Attestation), "attStmt": stmt, "authData": authData})
	if err != nil {
		return nil, err
	}
	a.creds = append(a.creds, c)
	return json.Marshal(map[string]any{
		"id": b64(id), "rawId": b64(id), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON": b64(clientData), "attestationObject": b64(attObj),
			"transports": a.opts.Transports,
		},
		"authenticatorAttachment": "cross-platform",
		"clientExtensionResults":  map[string]any{},
	})
}

type requestOptions struct {
	Challenge string `json:"challenge"`
	RPID      string `json:"rpId"`
	Allow     []struct {
		ID string `json:"id"`
	} `json:"allowCredentials"`
}

// Get answers PublicKeyCredentialRequestOptionsJSON with an
// AuthenticationResponseJSON, as navigator.credentials.get would, after
// recording displayText. It signs with the first allowed credential it holds.
func (a *Authenticator) Get(_ context.Context, displayText string, options json.RawMessage) (json.RawMessage, error) {
	var o requestOptions
	if err := json.Unmarshal(options, &o); err != nil {
		return nil, fmt.Errorf("approvaltest: request options: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prompts = append(a.prompts, displayText)
	var c *credential
	for _, cand := range a.creds {
		if cand.rpID != o.RPID {
			continue
		}
		if len(o.Allow) == 0 {
			c = cand
		}
		for _, al := range o.Allow {
			if al.ID == b64(cand.id) {
				c = cand
			}
		}
		if c != nil {
			break
		}
	}
	if c == nil {
		return nil, ErrNoCredential
	}
	if a.opts.Counter == CounterIncrement {
		c.count++
	}
	return a.assert(c, o.Challenge, a.authData(o.RPID, c.count, false))
}

// Assert signs challenge (base64url) with credential id without the
// bookkeeping of Get: the counter is the given value. It is for tests that
// forge or replay assertions.
func (a *Authenticator) Assert(id []byte, challenge string, counter uint32) (json.RawMessage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.creds {
		if string(c.id) == string(id) {
			return a.assert(c, challenge, a.authData(c.rpID, counter, false))
		}
	}
	return nil, ErrNoCredential
}

func (a *Authenticator) assert(c *credential, challenge string, authData []byte) (json.RawMessage, error) {
	clientData, _ := json.Marshal(map[string]any{
		"type": "webauthn.get", "challenge": challenge, "origin": a.origin, "crossOrigin": false,
	})
	sig, err := sign(c.key, authData, clientData)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"id": b64(c.id), "rawId": b64(c.id), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON": b64(clientData), "authenticatorData": b64(authData),
			"signature": b64(sig), "userHandle": b64(c.user),
		},
		"authenticatorAttachment": "cross-platform",
		"clientExtensionResults":  map[string]any{},
	})
}

// authData builds rpIdHash || flags || signCount (attested data appended by
// the caller when at is set).
func (a *Authenticator) authData(rpID string, count uint32, at bool) []byte {
	h := sha256.Sum256([]byte(rpID))
	flags := byte(0x01) // UP
	if !a.opts.NoUserVerification {
		flags |= 0x04 // UV
	}
	if a.opts.BackupEligible {
		flags |= 0x08 | 0x10 // BE, BS
	}
	if at {
		flags |= 0x40 // AT
	}
	out := append(h[:], flags)
	return binary.BigEndian.AppendUint32(out, count)
}

func sign(key *ecdsa.PrivateKey, authData, clientData []byte) ([]byte, error) {
	cd := sha256.Sum256(clientData)
	msg := sha256.Sum256(append(append([]byte(nil), authData...), cd[:]...))
	return ecdsa.SignASN1(rand.Reader, key, msg[:])
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func b64d(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
