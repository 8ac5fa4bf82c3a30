package vault_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/keys"
)

var fastKDF = &vault.KeyFileOptions{ScryptN: 1 << 10}

func TestPrivateKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "private.key")
	priv := key(3)
	pass := []byte("correct horse battery staple")
	if err := vault.WritePrivateKey(path, priv, pass, fastKDF); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	raw, _ := os.ReadFile(path)
	if bytes.Contains(raw, priv.Seed()) || bytes.Contains(raw, []byte(string(priv.Seed()))) {
		t.Fatal("seed in clear in the key file")
	}
	got, err := vault.ReadPrivateKey(path, pass)
	if err != nil || !got.Equal(priv) {
		t.Fatalf("ReadPrivateKey = %v", err)
	}
	if _, err := vault.ReadPrivateKey(path, []byte("wrong")); !errors.Is(err, vault.ErrKeyFile) {
		t.Fatalf("wrong passphrase: %v, want ErrKeyFile", err)
	}
	if err := vault.WritePrivateKey(path, key(4), pass, fastKDF); err == nil {
		t.Fatal("WritePrivateKey overwrote an existing key")
	}
	_ = os.Chmod(path, 0o640)
	if _, err := vault.ReadPrivateKey(path, pass); !errors.Is(err, vault.ErrKeyFile) {
		t.Fatalf("group-readable key: %v, want ErrKeyFile", err)
	}
	pub := filepath.Join(dir, "public.key")
	if err := vault.WritePublicKey(pub, mustSigner(t, priv).PublicKey()); err != nil {
		t.Fatal(err)
	}
	if p, err := vault.ReadPublicKey(pub); err != nil || !p.Equal(mustSigner(t, priv).PublicKey()) {
		t.Fatalf("ReadPublicKey = %v", err)
	}
}

func TestPrivateKeyFileTampered(t *testing.T) {
	data, err := vault.EncryptPrivateKey(key(3), []byte("pw"), fastKDF)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	_ = json.Unmarshal(data, &f)
	// The first byte changed, whatever it was (a fixed "00" left a random
	// salt that began with 0x00 untampered: a 1 in 256 flake).
	flip := func(hexs string) string {
		if hexs[:2] == "00" {
			return "ff" + hexs[2:]
		}
		return "00" + hexs[2:]
	}
	for field, val := range map[string]any{
		"ciphertext": flip(f["ciphertext"].(string)),
		"salt":       flip(f["salt"].(string)),
		"public_key": flip(f["public_key"].(string)),
		"n":          1 << 30, // would cost gigabytes: refused before scrypt runs
		"kdf":        "pbkdf2",
	} {
		g := maps(f)
		g[field] = val
		b, _ := json.Marshal(g)
		if _, err := vault.DecryptPrivateKey(b, []byte("pw")); !errors.Is(err, vault.ErrKeyFile) {
			t.Errorf("tampered %s: %v, want ErrKeyFile", field, err)
		}
	}
	if _, err := vault.DecryptPrivateKey(data, []byte("pw")); err != nil {
		t.Fatalf("untampered: %v", err)
	}
	// The default cost works too.
	data, err = vault.EncryptPrivateKey(key(3), []byte("pw"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vault.DecryptPrivateKey(data, []byte("pw")); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]*vault.KeyFileOptions{"not a power of two": {ScryptN: 3000}, "too cheap": {ScryptN: 16}} {
		if _, err := vault.EncryptPrivateKey(key(3), []byte("pw"), o); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := vault.EncryptPrivateKey(key(3), nil, nil); !errors.Is(err, consent.ErrInvalidOptions) {
		t.Error("empty passphrase accepted")
	}
}

// TestKeyFilesAreTheOneFormat: the files vault writes are the PEM and
// OpenSSH files package keys (and `gatehouse keygen`, ssh-keygen) read and
// write, and the files vault wrote before (hex public key, scrypt JSON
// private key) are still read.
func TestKeyFilesAreTheOneFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pass := key(5), []byte("pw")
	path := filepath.Join(dir, "signer.key")
	if err := vault.WritePrivateKey(path, priv, pass, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := keys.ReadPrivateKey(path, pass); err != nil || !got.Equal(priv) {
		t.Fatalf("keys reads vault's private key: %v", err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	if err := vault.WritePublicKey(path+".pub", pub); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path + ".pub")
	if !bytes.HasPrefix(raw, []byte("-----BEGIN PUBLIC KEY-----")) {
		t.Fatalf("public key file is not PEM: %q", raw)
	}
	// Older files.
	os.WriteFile(filepath.Join(dir, "old.pub"), []byte(hex.EncodeToString(pub)+"\n"), 0o644)
	if got, err := vault.ReadPublicKey(filepath.Join(dir, "old.pub")); err != nil || !got.Equal(pub) {
		t.Fatalf("hex public key: %v", err)
	}
	old, err := vault.EncryptPrivateKey(priv, pass, fastKDF)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "old.key"), old, 0o600)
	if got, err := vault.ReadPrivateKey(filepath.Join(dir, "old.key"), pass); err != nil || !got.Equal(priv) {
		t.Fatalf("scrypt JSON private key: %v", err)
	}
	// An OpenSSH key from keys (unencrypted) reads with an empty passphrase.
	plain, _ := keys.MarshalPrivateKey(priv, keys.OpenSSH, nil, "")
	os.WriteFile(filepath.Join(dir, "plain.key"), plain, 0o600)
	if _, err := vault.ReadPrivateKey(filepath.Join(dir, "plain.key"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := vault.ReadPrivateKey(filepath.Join(dir, "plain.key"), pass); !errors.Is(err, vault.ErrKeyFile) {
		t.Fatalf("passphrase for an unencrypted key: %v", err)
	}
}
