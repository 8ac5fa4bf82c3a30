package consent_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"io"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// kms is a crypto.Signer that holds its key out of reach, as a KMS or an
// HSM does: only Public and Sign are visible.
type kms struct {
	priv  ed25519.PrivateKey
	calls int
	lie   ed25519.PrivateKey // when set, signs with this key instead
}

func (k *kms) Public() crypto.PublicKey { return k.priv.Public() }
func (k *kms) Sign(_ io.Reader, msg []byte, o crypto.SignerOpts) ([]byte, error) {
	k.calls++
	if o.HashFunc() != crypto.Hash(0) {
		return nil, errors.New("kms: Ed25519 signs the message itself")
	}
	if k.lie != nil {
		return ed25519.Sign(k.lie, msg), nil
	}
	return ed25519.Sign(k.priv, msg), nil
}

var _ crypto.Signer = (*kms)(nil)

func TestSignerAcceptsACryptoSigner(t *testing.T) {
	c := newClock()
	hsm := &kms{priv: key(7)}
	s, err := consent.NewSigner(hsm)
	if err != nil {
		t.Fatal(err)
	}
	if !s.PublicKey().Equal(key(7).Public()) {
		t.Fatal("public key")
	}
	v, _ := consent.NewVerifier([]ed25519.PublicKey{s.PublicKey()}, memNonces(t, c), &consent.VerifierOptions{Now: c.Now})
	req := newRequest(t, c, params)
	resp := respond(t, s, c, req, consent.Approved, nil)
	if hsm.calls != 1 {
		t.Fatalf("the crypto.Signer was called %d times", hsm.calls)
	}
	if err := v.Verify(context.Background(), req, resp, "send_email", params); err != nil {
		t.Fatal(err)
	}
	// The same key as a plain ed25519.PrivateKey signs identically
	// (Ed25519 is deterministic).
	plain := respond(t, mustSigner(t, key(7)), c, req, consent.Approved, nil)
	if plain.Proof.Signature != resp.Proof.Signature {
		t.Error("crypto.Signer and ed25519.PrivateKey paths disagree")
	}
	p := key(7)
	if s2, err := consent.NewSigner(&p); err != nil || !s2.PublicKey().Equal(s.PublicKey()) {
		t.Errorf("*ed25519.PrivateKey: %v", err)
	}
}

func TestSignerRefusesWrongSigners(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var nilKey *ed25519.PrivateKey
	for name, k := range map[string]crypto.Signer{
		"nil":        nil,
		"nil ptr":    nilKey,
		"ecdsa":      ec,
		"short priv": ed25519.PrivateKey(make([]byte, 63)),
	} {
		if _, err := consent.NewSigner(k); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
	// A signer whose signatures are not its public key's: Sign fails
	// instead of producing proofs that would fail later.
	s, err := consent.NewSigner(&kms{priv: key(7), lie: key(8)})
	if err != nil {
		t.Fatal(err)
	}
	c := newClock()
	req := newRequest(t, c, params)
	resp := &consent.ConsentResponse{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Approved, Timestamp: c.Now()}
	resp.Conditions.ValidUntil = c.Now().Add(60e9)
	if err := s.Sign(req, resp); err == nil || resp.Proof.Signature != "" {
		t.Fatalf("lying signer: %v, signature %q", err, resp.Proof.Signature)
	}
}
