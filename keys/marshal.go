package keys

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
)

// MarshalPublicKey spells pub in format f: a PEM "PUBLIC KEY" block, or an
// authorized_keys line "ssh-ed25519 <base64> <comment>" (comment may be
// empty; it must be one line).
func MarshalPublicKey(pub ed25519.PublicKey, f Format, comment string) ([]byte, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: Ed25519 public key of %d bytes, want %d", ErrKey, len(pub), ed25519.PublicKeySize)
	}
	if strings.ContainsAny(comment, "\r\n") {
		return nil, fmt.Errorf("%w: the comment must be one line", ErrKey)
	}
	switch f {
	case PEM:
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: blockPublic, Bytes: der}), nil
	case OpenSSH:
		spk, err := ssh.NewPublicKey(pub)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		line := ssh.MarshalAuthorizedKey(spk) // ends with "\n"
		if comment != "" {
			line = append(line[:len(line)-1], " "+comment+"\n"...)
		}
		return line, nil
	}
	return nil, fmt.Errorf("%w: unknown format %v", ErrKey, f)
}

// MarshalPrivateKey spells priv in format f. With a passphrase the key is
// encrypted, which only the OpenSSH format supports here (PKCS#8 encryption
// is not in the standard library): PEM with a passphrase is an error.
func MarshalPrivateKey(priv ed25519.PrivateKey, f Format, passphrase []byte, comment string) ([]byte, error) {
	if _, err := ed25519Private(priv); err != nil {
		return nil, err
	}
	switch f {
	case PEM:
		if len(passphrase) > 0 {
			return nil, fmt.Errorf("%w: PEM (PKCS#8) keys are written unencrypted; use the OpenSSH format for a passphrase", ErrKey)
		}
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: blockPrivate, Bytes: der}), nil
	case OpenSSH:
		var blk *pem.Block
		var err error
		if len(passphrase) > 0 {
			blk, err = ssh.MarshalPrivateKeyWithPassphrase(priv, comment, passphrase)
		} else {
			blk, err = ssh.MarshalPrivateKey(priv, comment)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrKey, err)
		}
		return pem.EncodeToMemory(blk), nil
	}
	return nil, fmt.Errorf("%w: unknown format %v", ErrKey, f)
}

// ReadPublicKey reads the public key file at path ([ParsePublicKey]).
func ReadPublicKey(path string) (ed25519.PublicKey, error) {
	data, err := readBounded(path, false)
	if err != nil {
		return nil, err
	}
	pub, err := ParsePublicKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pub, nil
}

// ReadPrivateKey reads the private key file at path ([ParsePrivateKey]).
// It refuses a file that group or others may read (on systems with Unix
// permissions), as ssh does.
func ReadPrivateKey(path string, passphrase []byte) (ed25519.PrivateKey, error) {
	data, err := readBounded(path, true)
	if err != nil {
		return nil, err
	}
	priv, err := ParsePrivateKey(data, passphrase)
	clear(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return priv, nil
}

// WritePrivateKey writes data (from [MarshalPrivateKey]) to path with mode
// 0600, atomically; it refuses to overwrite an existing file.
func WritePrivateKey(path string, data []byte) error {
	return write(path, data, 0o600)
}

// WritePublicKey writes data (from [MarshalPublicKey]) to path with mode
// 0644, atomically; it refuses to overwrite an existing file.
func WritePublicKey(path string, data []byte) error {
	return write(path, data, 0o644)
}

func write(path string, data []byte, perm os.FileMode) error {
	if err := fsutil.WriteFileAtomic(path, data, perm, true); err != nil {
		return fmt.Errorf("keys: writing %s: %w", path, err)
	}
	return nil
}

func readBounded(path string, private bool) ([]byte, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes, so
	// a key path naming one would hang instead of failing.
	pre, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if !pre.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrKey, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if !st.Mode().IsRegular() || !os.SameFile(pre, st) {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrKey, path)
	}
	if private && unixPerms && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %#o: a private key must not be readable by group or others (chmod 600)", ErrKey, path, st.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrKey, path, MaxFileBytes)
	}
	return data, nil
}
