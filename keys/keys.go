package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// Format is how a key file is spelled.
type Format int

// The two key-file formats.
const (
	// PEM is "PRIVATE KEY" (PKCS#8) and "PUBLIC KEY" (SubjectPublicKeyInfo).
	PEM Format = iota
	// OpenSSH is "OPENSSH PRIVATE KEY" and an authorized_keys line.
	OpenSSH
)

func (f Format) String() string {
	switch f {
	case PEM:
		return "pem"
	case OpenSSH:
		return "openssh"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads "pem" or "openssh".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "pem":
		return PEM, nil
	case "openssh", "ssh":
		return OpenSSH, nil
	}
	return 0, fmt.Errorf("%w: unknown key format %q: want pem or openssh", ErrKey, clip(s))
}

var (
	// ErrKey is wrapped by every error about a key or key file.
	ErrKey = errors.New("keys: bad key")
	// ErrPassphrase is wrapped when an encrypted private key has no
	// passphrase or the passphrase is wrong. It also matches ErrKey.
	ErrPassphrase = fmt.Errorf("%w: passphrase missing or wrong", ErrKey)
)

// MaxFileBytes bounds a key file.
const MaxFileBytes = 64 << 10

// PEM block types.
const (
	blockPublic     = "PUBLIC KEY"
	blockPrivate    = "PRIVATE KEY"
	blockOpenSSH    = "OPENSSH PRIVATE KEY"
	blockEncPKCS8   = "ENCRYPTED PRIVATE KEY"
	legacyHexLength = 2 * ed25519.PublicKeySize
)

// ParsePublicKey reads an Ed25519 public key from a PEM "PUBLIC KEY" block,
// an OpenSSH authorized_keys line ("ssh-ed25519 <base64> [comment]"), or 64
// hex digits (the format consent/vault wrote before; read only).
func ParsePublicKey(data []byte) (ed25519.PublicKey, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%w: key larger than %d bytes", ErrKey, MaxFileBytes)
	}
	text := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(text, []byte("-----BEGIN ")):
		return parsePublicPEM(text)
	case bytes.HasPrefix(text, []byte("ssh-")):
		return parseAuthorizedKey(text)
	case len(text) == legacyHexLength:
		b, err := hex.DecodeString(string(text))
		if err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: not a public key (want PEM \"PUBLIC KEY\" or an \"ssh-ed25519 ...\" line)", ErrKey)
}

func parsePublicPEM(text []byte) (ed25519.PublicKey, error) {
	blk, rest := pem.Decode(text)
	if blk == nil {
		return nil, fmt.Errorf("%w: malformed PEM", ErrKey)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("%w: data after the PEM block", ErrKey)
	}
	if blk.Type != blockPublic {
		return nil, fmt.Errorf("%w: PEM block %q, want %q", ErrKey, clip(blk.Type), blockPublic)
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: PUBLIC KEY does not parse: %w", ErrKey, err)
	}
	return ed25519Public(k)
}

func parseAuthorizedKey(text []byte) (ed25519.PublicKey, error) {
	pk, _, _, rest, err := ssh.ParseAuthorizedKey(text)
	if err != nil {
		return nil, fmt.Errorf("%w: authorized_keys line does not parse: %w", ErrKey, err)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("%w: more than one key in the file", ErrKey)
	}
	cpk, ok := pk.(ssh.CryptoPublicKey)
	if !ok || pk.Type() != ssh.KeyAlgoED25519 {
		return nil, fmt.Errorf("%w: %s key, want ssh-ed25519", ErrKey, clip(pk.Type()))
	}
	return ed25519Public(cpk.CryptoPublicKey())
}

func ed25519Public(k any) (ed25519.PublicKey, error) {
	pub, ok := k.(ed25519.PublicKey)
	if !ok || len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: not an Ed25519 key (%T)", ErrKey, k)
	}
	return append(ed25519.PublicKey(nil), pub...), nil
}

// ParsePrivateKey reads an Ed25519 private key from a PEM "PRIVATE KEY"
// (PKCS#8) or "OPENSSH PRIVATE KEY" block. An encrypted OpenSSH key needs
// passphrase; a wrong or missing one fails with [ErrPassphrase]. A
// passphrase given for an unencrypted key is an error too, so a key that
// was meant to be encrypted and is not does not pass unnoticed.
func ParsePrivateKey(data, passphrase []byte) (ed25519.PrivateKey, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%w: key larger than %d bytes", ErrKey, MaxFileBytes)
	}
	blk, rest := pem.Decode(bytes.TrimSpace(data))
	if blk == nil {
		return nil, fmt.Errorf("%w: not a PEM private key", ErrKey)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("%w: data after the PEM block", ErrKey)
	}
	if _, legacy := blk.Headers["Proc-Type"]; legacy {
		return nil, fmt.Errorf("%w: legacy encrypted PEM is not supported; use an OpenSSH key with a passphrase", ErrKey)
	}
	switch blk.Type {
	case blockPrivate:
		if len(passphrase) > 0 {
			return nil, fmt.Errorf("%w: a passphrase was given but the PKCS#8 key is not encrypted", ErrKey)
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: PRIVATE KEY does not parse: %w", ErrKey, err)
		}
		return ed25519Private(k)
	case blockOpenSSH:
		return parseOpenSSHPrivate(pem.EncodeToMemory(blk), passphrase)
	case blockEncPKCS8:
		return nil, fmt.Errorf("%w: encrypted PKCS#8 is not supported; use an OpenSSH key with a passphrase", ErrKey)
	}
	return nil, fmt.Errorf("%w: PEM block %q, want %q or %q", ErrKey, clip(blk.Type), blockPrivate, blockOpenSSH)
}

func parseOpenSSHPrivate(pemBytes, passphrase []byte) (ed25519.PrivateKey, error) {
	var k any
	var err error
	if len(passphrase) == 0 {
		k, err = ssh.ParseRawPrivateKey(pemBytes)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("%w: the key is encrypted and no passphrase was given", ErrPassphrase)
		}
	} else {
		k, err = ssh.ParseRawPrivateKeyWithPassphrase(pemBytes, passphrase)
		switch {
		case errors.Is(err, x509.IncorrectPasswordError):
			return nil, fmt.Errorf("%w: the passphrase does not decrypt the key", ErrPassphrase)
		case err != nil && strings.Contains(err.Error(), "not password protected"):
			return nil, fmt.Errorf("%w: a passphrase was given but the OpenSSH key is not encrypted", ErrKey)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: OPENSSH PRIVATE KEY does not parse: %w", ErrKey, err)
	}
	if p, ok := k.(*ed25519.PrivateKey); ok && p != nil {
		k = *p
	}
	return ed25519Private(k)
}

func ed25519Private(k any) (ed25519.PrivateKey, error) {
	priv, ok := k.(ed25519.PrivateKey)
	if !ok || len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: not an Ed25519 private key (%T)", ErrKey, k)
	}
	// The public half stored in the file must be the seed's.
	if !bytes.Equal(ed25519.NewKeyFromSeed(priv.Seed())[32:], priv[32:]) {
		return nil, fmt.Errorf("%w: the private key's public half does not match its seed", ErrKey)
	}
	return append(ed25519.PrivateKey(nil), priv...), nil
}

// clip bounds untrusted text quoted in an error.
func clip(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
