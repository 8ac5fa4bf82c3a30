package vault

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/crypto/scrypt"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/keys"
)

// Private key file format: the Ed25519 seed sealed with AES-256-GCM under a
// key from scrypt over the passphrase (ACP §6.1 "encrypted").
const (
	keyFileVersion = 1
	keyFileKDF     = "scrypt"
	keyFileCipher  = "aes-256-gcm"
	// DefaultScryptN is the scrypt cost of new key files (2^15: 32 MiB,
	// tens of milliseconds).
	DefaultScryptN = 1 << 15
	// maxScryptN bounds the cost a key file may ask for, so a hostile file
	// cannot make reading it take gigabytes.
	maxScryptN = 1 << 20
	minScryptN = 1 << 10
	scryptR    = 8
	scryptP    = 1
)

// KeyFileOptions configure [EncryptPrivateKey]. nil means defaults.
type KeyFileOptions struct {
	// ScryptN is the scrypt cost, a power of two from 2^10 to 2^20
	// (default DefaultScryptN).
	ScryptN int
}

type keyFile struct {
	Version    int    `json:"version"`
	KDF        string `json:"kdf"`
	N          int    `json:"n"`
	R          int    `json:"r"`
	P          int    `json:"p"`
	Salt       string `json:"salt"`
	Cipher     string `json:"cipher"`
	Nonce      string `json:"nonce"`
	Ciphertext string `json:"ciphertext"`
	PublicKey  string `json:"public_key"` // hex, for operators; checked on decryption
}

func (f *keyFile) aad() []byte {
	return []byte(strings.Join([]string{strconv.Itoa(f.Version), f.KDF, strconv.Itoa(f.N), strconv.Itoa(f.R), strconv.Itoa(f.P), f.Salt, f.Cipher, f.PublicKey}, "|"))
}

func (f *keyFile) aead(passphrase, salt []byte) (cipher.AEAD, error) {
	k, err := scrypt.Key(passphrase, salt, f.N, f.R, f.P, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: scrypt: %w", ErrKeyFile, err)
	}
	b, err := aes.NewCipher(k)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	return cipher.NewGCM(b)
}

// EncryptPrivateKey seals priv under passphrase (non-empty) and returns the
// key file's JSON (scrypt and AES-256-GCM). opts may be nil.
//
// Deprecated: [WritePrivateKey] writes OpenSSH's encrypted format, which
// `gatehouse keygen` and ssh-keygen also write; [ReadPrivateKey] still
// reads this one.
func EncryptPrivateKey(priv ed25519.PrivateKey, passphrase []byte, opts *KeyFileOptions) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: Ed25519 private key of %d bytes, want %d", consent.ErrInvalidOptions, len(priv), ed25519.PrivateKeySize)
	}
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("%w: empty passphrase", consent.ErrInvalidOptions)
	}
	n := DefaultScryptN
	if opts != nil && opts.ScryptN != 0 {
		n = opts.ScryptN
	}
	if !validN(n) {
		return nil, fmt.Errorf("%w: ScryptN %d, want a power of two from %d to %d", consent.ErrInvalidOptions, n, minScryptN, maxScryptN)
	}
	salt := make([]byte, 32)
	_, _ = rand.Read(salt)
	f := keyFile{Version: keyFileVersion, KDF: keyFileKDF, N: n, R: scryptR, P: scryptP, Salt: hex.EncodeToString(salt),
		Cipher: keyFileCipher, PublicKey: hex.EncodeToString(priv.Public().(ed25519.PublicKey))}
	aead, err := f.aead(passphrase, salt)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	f.Nonce = hex.EncodeToString(nonce)
	f.Ciphertext = hex.EncodeToString(aead.Seal(nil, nonce, priv.Seed(), f.aad()))
	return json.MarshalIndent(f, "", "  ")
}

func validN(n int) bool { return n >= minScryptN && n <= maxScryptN && n&(n-1) == 0 }

// DecryptPrivateKey opens a key file made by [EncryptPrivateKey]. A wrong
// passphrase and any change to the file fail with [ErrKeyFile]; the error
// never says which.
func DecryptPrivateKey(data, passphrase []byte) (ed25519.PrivateKey, error) {
	var f keyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: key file is not JSON", ErrKeyFile)
	}
	if f.Version != keyFileVersion || f.KDF != keyFileKDF || f.Cipher != keyFileCipher || !validN(f.N) || f.R != scryptR || f.P != scryptP {
		return nil, fmt.Errorf("%w: unsupported key file (version %d, kdf %q, n %d, r %d, p %d, cipher %q)", ErrKeyFile, f.Version, clip(f.KDF), f.N, f.R, f.P, clip(f.Cipher))
	}
	salt, err1 := hex.DecodeString(f.Salt)
	nonce, err2 := hex.DecodeString(f.Nonce)
	ct, err3 := hex.DecodeString(f.Ciphertext)
	if err1 != nil || err2 != nil || err3 != nil || len(salt) < 16 {
		return nil, fmt.Errorf("%w: key file salt, nonce or ciphertext badly encoded", ErrKeyFile)
	}
	aead, err := f.aead(passphrase, salt)
	if err != nil {
		return nil, err
	}
	if len(nonce) != aead.NonceSize() {
		return nil, fmt.Errorf("%w: key file nonce badly encoded", ErrKeyFile)
	}
	seed, err := aead.Open(nil, nonce, ct, f.aad())
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%w: key file does not decrypt: wrong passphrase or tampered file", ErrKeyFile)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	clear(seed)
	if hex.EncodeToString(priv.Public().(ed25519.PublicKey)) != f.PublicKey {
		return nil, fmt.Errorf("%w: key file public key does not match its private key", ErrKeyFile)
	}
	return priv, nil
}

// WritePrivateKey encrypts priv under passphrase (non-empty) in OpenSSH's
// encrypted key format (bcrypt-pbkdf, AES-256-CTR; [keys.MarshalPrivateKey])
// and writes it to path with mode 0600. It refuses to overwrite an existing
// file. opts is ignored (it set the cost of the older scrypt format, which
// [EncryptPrivateKey] still writes).
func WritePrivateKey(path string, priv ed25519.PrivateKey, passphrase []byte, opts *KeyFileOptions) error {
	if len(priv) != ed25519.PrivateKeySize {
		return fmt.Errorf("%w: Ed25519 private key of %d bytes, want %d", consent.ErrInvalidOptions, len(priv), ed25519.PrivateKeySize)
	}
	if len(passphrase) == 0 {
		return fmt.Errorf("%w: empty passphrase", consent.ErrInvalidOptions)
	}
	// Refuse an existing file before paying for the key derivation (the
	// write below refuses it again, atomically).
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%w: writing private key: %w", ErrKeyFile, os.ErrExist)
	}
	data, err := keys.MarshalPrivateKey(priv, keys.OpenSSH, passphrase, "gatehouse consent signer")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	if err := keys.WritePrivateKey(path, data); err != nil {
		return fmt.Errorf("%w: writing private key: %w", ErrKeyFile, err)
	}
	return nil
}

// ReadPrivateKey reads and decrypts the key file at path: any private key
// [keys.ParsePrivateKey] reads (OpenSSH, encrypted or not, or PKCS#8 PEM
// with an empty passphrase), or a file in the older scrypt JSON format of
// [EncryptPrivateKey]. It refuses a file that group or others may read.
// Errors wrap [ErrKeyFile].
func ReadPrivateKey(path string, passphrase []byte) (ed25519.PrivateKey, error) {
	data, err := readPrivateFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	defer clear(data)
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return DecryptPrivateKey(data, passphrase)
	}
	priv, err := keys.ParsePrivateKey(data, passphrase)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrKeyFile, path, err)
	}
	return priv, nil
}

// WritePublicKey writes pub to path as a PEM "PUBLIC KEY" block
// ([keys.MarshalPublicKey]), mode 0644. It refuses to overwrite an
// existing file.
func WritePublicKey(path string, pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: Ed25519 public key of %d bytes", consent.ErrInvalidOptions, len(pub))
	}
	data, err := keys.MarshalPublicKey(pub, keys.PEM, "")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	if err := keys.WritePublicKey(path, data); err != nil {
		return fmt.Errorf("%w: writing public key: %w", ErrKeyFile, err)
	}
	return nil
}

// ReadPublicKey reads a public key file: PEM, an OpenSSH authorized_keys
// line, or the hex this package wrote before ([keys.ParsePublicKey]).
func ReadPublicKey(path string) (ed25519.PublicKey, error) {
	pub, err := keys.ReadPublicKey(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyFile, err)
	}
	return pub, nil
}
