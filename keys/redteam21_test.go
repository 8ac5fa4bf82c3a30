package keys_test

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/keys"
)

// TestRedTeam21_KeyPathIsAFIFO: a key path that names a FIFO (or another
// non-regular file) is refused at once; opening it first blocked until a
// writer came, so a CLI given such a path hung instead of failing.
func TestRedTeam21_KeyPathIsAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan error, 2)
	go func() { _, err := keys.ReadPublicKey(path); done <- err }()
	go func() { _, err := keys.ReadPrivateKey(path, nil); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if !errors.Is(err, keys.ErrKey) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("FIFO: %v, want ErrKey naming a non-regular file", err)
			}
		case <-time.After(5 * time.Second):
			// Unblock the readers so the test ends.
			if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatal("reading a FIFO key path hung")
		}
	}
}

// TestRedTeam21_KeyFileNearMisses: truncated key files of every length,
// a symlink to a group-readable private key, and a key with text before
// its PEM block.
func TestRedTeam21_KeyFileNearMisses(t *testing.T) {
	priv := testKey(21)
	for _, f := range []keys.Format{keys.PEM, keys.OpenSSH} {
		for _, pass := range [][]byte{nil, []byte("pw")} {
			if f == keys.PEM && pass != nil {
				continue // PKCS#8 keys are written unencrypted
			}
			data, err := keys.MarshalPrivateKey(priv, f, pass, "c")
			if err != nil {
				t.Fatal(err)
			}
			for n := 0; n < len(data)-1; n += 7 {
				cut := strings.TrimSpace(string(data[:n]))
				if cut == strings.TrimSpace(string(data)) {
					continue
				}
				if k, err := keys.ParsePrivateKey([]byte(cut), pass); err == nil {
					t.Errorf("%v %d of %d bytes parsed: %x", f, n, len(data), k[:4])
				}
			}
		}
		pub, _ := keys.MarshalPublicKey(priv.Public().(ed25519.PublicKey), f, "c")
		for n := 0; n < len(pub)-2; n += 3 {
			if _, err := keys.ParsePublicKey(pub[:n]); err == nil && n < len(strings.TrimSpace(string(pub)))-1 {
				// an authorized_keys line may lose its comment and stay valid
				if f == keys.OpenSSH && n > len("ssh-ed25519 ")+68 {
					continue
				}
				t.Errorf("public %v: %d of %d bytes parsed", f, n, len(pub))
			}
		}
	}
	dir := t.TempDir()
	data, _ := keys.MarshalPrivateKey(priv, keys.PEM, nil, "")
	target := filepath.Join(dir, "key")
	if err := os.WriteFile(target, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := keys.ReadPrivateKey(link, nil); !errors.Is(err, keys.ErrKey) {
		t.Errorf("symlink to a 0644 private key: %v", err)
	}
	os.Chmod(target, 0o600)
	if got, err := keys.ReadPrivateKey(link, nil); err != nil || !got.Equal(priv) {
		t.Errorf("symlink to a 0600 private key: %v", err)
	}
	// Text before the PEM block (as openssl writes "Bag Attributes") is
	// skipped; text after it is refused.
	if got, err := keys.ParsePrivateKey(append([]byte("Key for gatehouse\n"), data...), nil); err != nil || !got.Equal(priv) {
		t.Errorf("leading text: %v", err)
	}
	if _, err := keys.ParsePrivateKey(append(data, "x"...), nil); !errors.Is(err, keys.ErrKey) {
		t.Errorf("trailing text: %v", err)
	}
}
