package keys_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/keys"
)

func testKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

// encrypted is testKey(2) as an encrypted OpenSSH key under "right", made
// once: each bcrypt-pbkdf costs seconds under the race detector.
var encrypted = sync.OnceValue(func() []byte {
	data, err := keys.MarshalPrivateKey(testKey(2), keys.OpenSSH, []byte("right"), "")
	if err != nil {
		panic(err)
	}
	return data
})

func TestRoundTripEveryFormat(t *testing.T) {
	t.Parallel()
	priv := testKey(1)
	pub := priv.Public().(ed25519.PublicKey)
	for _, f := range []keys.Format{keys.PEM, keys.OpenSSH} {
		data, err := keys.MarshalPrivateKey(priv, f, nil, "me@host") // encrypted: TestPassphrase
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if got, err := keys.ParsePrivateKey(data, nil); err != nil || !got.Equal(priv) {
			t.Fatalf("%v: %v", f, err)
		}
		data, err = keys.MarshalPublicKey(pub, f, "me@host")
		if err != nil {
			t.Fatal(err)
		}
		got, err := keys.ParsePublicKey(data)
		if err != nil || !got.Equal(pub) {
			t.Fatalf("%v public: %v\n%s", f, err, data)
		}
	}
}

func TestPassphrase(t *testing.T) {
	t.Parallel()
	priv, enc := testKey(2), encrypted()
	if got, err := keys.ParsePrivateKey(enc, []byte("right")); err != nil || !got.Equal(priv) {
		t.Fatalf("right passphrase: %v", err)
	}
	if _, err := keys.ParsePrivateKey(enc, []byte("wrong")); !errors.Is(err, keys.ErrPassphrase) || !errors.Is(err, keys.ErrKey) {
		t.Errorf("wrong passphrase: %v", err)
	}
	if _, err := keys.ParsePrivateKey(enc, nil); !errors.Is(err, keys.ErrPassphrase) {
		t.Errorf("missing passphrase: %v", err)
	}
	for _, f := range []keys.Format{keys.PEM, keys.OpenSSH} {
		plain, _ := keys.MarshalPrivateKey(priv, f, nil, "")
		if _, err := keys.ParsePrivateKey(plain, []byte("x")); !errors.Is(err, keys.ErrKey) {
			t.Errorf("%v: passphrase for an unencrypted key: %v", f, err)
		}
	}
	if _, err := keys.MarshalPrivateKey(priv, keys.PEM, []byte("x"), ""); !errors.Is(err, keys.ErrKey) {
		t.Errorf("PEM with passphrase: %v", err)
	}
	if strings.Contains(string(enc), "right") {
		t.Error("passphrase in the output")
	}
}

func TestRefusesWhatIsNotAnEd25519Key(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecPub, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	ecPriv, _ := x509.MarshalPKCS8PrivateKey(ec)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: ecPub})
	privPEM, _ := keys.MarshalPrivateKey(testKey(3), keys.PEM, nil, "")
	good, _ := keys.MarshalPublicKey(testKey(3).Public().(ed25519.PublicKey), keys.OpenSSH, "")
	publics := map[string]string{
		"ecdsa SPKI":        string(pubPEM),
		"private as public": string(privPEM),
		"wrong block":       strings.ReplaceAll(string(pubPEM), "PUBLIC KEY", "CERTIFICATE"),
		"two keys":          string(good) + string(good),
		"pem then garbage":  string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: ecPub})) + "x",
		"ssh-rsa line":      "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7 x",
		"security key":      skLine(),
		"with options":      `command="x" ` + string(good),
		"short hex":         strings.Repeat("ab", 31),
		"hex not hex":       strings.Repeat("zz", 32),
		"empty":             "",
		"huge":              strings.Repeat("a", keys.MaxFileBytes+1),
	}
	for name, in := range publics {
		if _, err := keys.ParsePublicKey([]byte(in)); !errors.Is(err, keys.ErrKey) {
			t.Errorf("public %s: %v", name, err)
		}
	}
	privates := map[string]string{
		"ecdsa PKCS8":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecPriv})),
		"public as priv": string(good),
		"encrypted p8":   string(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}})),
		"legacy enc":     string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: []byte{1}})),
		"two blocks":     string(privPEM) + string(privPEM),
		"empty":          "",
	}
	for name, in := range privates {
		if _, err := keys.ParsePrivateKey([]byte(in), nil); !errors.Is(err, keys.ErrKey) {
			t.Errorf("private %s: %v", name, err)
		}
	}
}

func TestReadsLegacyHexPublicKey(t *testing.T) {
	pub := testKey(4).Public().(ed25519.PublicKey)
	got, err := keys.ParsePublicKey([]byte(hex.EncodeToString(pub) + "\n"))
	if err != nil || !got.Equal(pub) {
		t.Fatalf("%v", err)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	priv := testKey(5)
	data, _ := keys.MarshalPrivateKey(priv, keys.OpenSSH, nil, "")
	path := filepath.Join(dir, "k")
	if err := keys.WritePrivateKey(path, data); err != nil {
		t.Fatal(err)
	}
	if err := keys.WritePrivateKey(path, data); !errors.Is(err, os.ErrExist) {
		t.Errorf("overwrite: %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if got, err := keys.ReadPrivateKey(path, nil); err != nil || !got.Equal(priv) {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	if _, err := keys.ReadPrivateKey(path, nil); !errors.Is(err, keys.ErrKey) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("group-readable key: %v", err)
	}
	if _, err := keys.ReadPublicKey(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := keys.ReadPublicKey(dir); !errors.Is(err, keys.ErrKey) {
		t.Errorf("directory: %v", err)
	}
}

// TestInteropWithOpenSSHAndOpenSSL reads keys written by ssh-keygen
// (encrypted and not) and openssl, and has ssh-keygen read ours.
func TestInteropWithOpenSSHAndOpenSSL(t *testing.T) {
	t.Parallel()
	sshKeygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh-keygen not installed; interop with OpenSSH not checked")
	}
	dir := t.TempDir()
	k := filepath.Join(dir, "id")
	if out, err := exec.Command(sshKeygen, "-q", "-t", "ed25519", "-a", "1", "-N", "pw", "-C", "c", "-f", k).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	priv, err := keys.ReadPrivateKey(k, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := keys.ReadPublicKey(k + ".pub")
	if err != nil || !pub.Equal(priv.Public()) {
		t.Fatalf("public %v", err)
	}
	// ssh-keygen reads our encrypted key and derives the same public key.
	os.WriteFile(filepath.Join(dir, "ours"), encrypted(), 0o600)
	out, err := exec.Command(sshKeygen, "-y", "-P", "right", "-f", filepath.Join(dir, "ours")).Output()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := keys.MarshalPublicKey(testKey(2).Public().(ed25519.PublicKey), keys.OpenSSH, "")
	if !bytes.Equal(bytes.TrimSpace(out), bytes.TrimSpace(want)) {
		t.Errorf("ssh-keygen -y: %s, want %s", out, want)
	}
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Log("openssl not installed; PKCS#8 interop not checked")
		return
	}
	p8 := filepath.Join(dir, "p8.pem")
	if out, err := exec.Command(openssl, "genpkey", "-algorithm", "ed25519", "-out", p8).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.Chmod(p8, 0o600)
	spki, err := exec.Command(openssl, "pkey", "-in", p8, "-pubout").Output()
	if err != nil {
		t.Fatal(err)
	}
	priv, err = keys.ReadPrivateKey(p8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pub, err := keys.ParsePublicKey(spki); err != nil || !pub.Equal(priv.Public()) {
		t.Fatalf("openssl SPKI: %v", err)
	}
}

// skLine is an authorized_keys line of a FIDO security key
// (sk-ssh-ed25519@openssh.com): its key bytes are Ed25519, but it signs a
// FIDO structure, not the message, so it is not a gatehouse key. (Only
// "ssh-ed25519" lines are read; the type check after parsing backs that.)
func skLine() string {
	pub := testKey(9).Public().(ed25519.PublicKey)
	str := func(b []byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...) }
	var wire []byte
	wire = append(wire, str([]byte("sk-ssh-ed25519@openssh.com"))...)
	wire = append(wire, str(pub)...)
	wire = append(wire, str([]byte("ssh:"))...)
	return "sk-ssh-ed25519@openssh.com " + base64.StdEncoding.EncodeToString(wire) + " fido"
}
