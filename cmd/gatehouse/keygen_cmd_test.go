package main_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/keys"
)

func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, format, privHead, pubHead string
	}{
		{"ssh", "openssh", "-----BEGIN OPENSSH PRIVATE KEY-----", "ssh-ed25519 AAAA"},
		{"pem", "pem", "-----BEGIN PRIVATE KEY-----", "-----BEGIN PUBLIC KEY-----"},
	} {
		out := filepath.Join(dir, c.name)
		r := gh(t, dir, "", "keygen", "-out", out, "-format", c.format)
		r.want(t, 0, "unencrypted", c.pubHead)
		priv, _ := os.ReadFile(out)
		pub, _ := os.ReadFile(out + ".pub")
		if !strings.HasPrefix(string(priv), c.privHead) || !strings.HasPrefix(string(pub), c.pubHead) {
			t.Fatalf("%s: files\n%s\n%s", c.name, priv, pub)
		}
		if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: private key mode %v", c.name, st.Mode())
		}
		k, err := keys.ReadPrivateKey(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := keys.ReadPublicKey(out + ".pub")
		if err != nil || !p.Equal(k.Public()) {
			t.Fatalf("%s: public key does not match: %v", c.name, err)
		}
		// Refuses to overwrite.
		gh(t, dir, "", "keygen", "-out", out, "-format", c.format).want(t, 2, "exists; refusing to overwrite")
	}
}

func TestKeygenPassphrase(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	cmd := exec.Command(bin, "keygen", "-out", out, "-passphrase-env", "GH_PASS")
	cmd.Env = append(os.Environ(), "GH_PASS=from env")
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "encrypted") {
		t.Fatalf("%v %s", err, b)
	}
	if _, err := keys.ReadPrivateKey(out, []byte("wrong")); !errors.Is(err, keys.ErrPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if _, err := keys.ReadPrivateKey(out, []byte("from env")); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(out); strings.Contains(string(raw), "from env") {
		t.Fatal("passphrase in the key file")
	}
	// ssh-keygen agrees the key is encrypted with that passphrase.
	if sk, err := exec.LookPath("ssh-keygen"); err == nil {
		if b, err := exec.Command(sk, "-y", "-P", "from env", "-f", out).Output(); err != nil || !strings.HasPrefix(string(b), "ssh-ed25519 ") {
			t.Errorf("ssh-keygen -y: %v %s", err, b)
		}
	}

	empty := write(t, dir, "empty", "\nsecond line\n")
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "a"), "-passphrase-file", empty).want(t, 2, "first line")
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "b"), "-passphrase-env", "GH_SURELY_UNSET_VAR").want(t, 2, "unset or empty")
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "c"), "-passphrase-file", filepath.Join(dir, "missing")).want(t, 2, "no such file")
	pass := write(t, dir, "pass", "x\n")
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "d"), "-format", "pem", "-passphrase-file", pass).want(t, 2, "use -format openssh")
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "e"), "-format", "der").want(t, 2, "unknown key format")
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "f"), "extra").want(t, 2, "unexpected argument")
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("a refused keygen wrote %s", n)
		}
	}
}
