package main_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/keys"
)

func corpus(name string) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "audit", "testdata", "corpus", name))
	return p
}

func TestAuditVerify(t *testing.T) {
	dir := t.TempDir()
	gh(t, dir, "", "audit", "verify", corpus("intact.jsonl")).want(t, 0, "OK 12 events in 1 file(s), seq 1..12", "decisions: ALLOW=8 ASK=4")
	gh(t, dir, "", "audit", "verify", "-pubkey", corpus("pubkey.pem"), "-checkpoints", corpus("intact-checkpoints.checkpoints"), corpus("intact-checkpoints.jsonl")).
		want(t, 0, "signed checkpoints matched: 3 (last at seq 12)")

	// Tampered: exit 1 and the line.
	gh(t, dir, "", "audit", "verify", corpus("tampered-tool.jsonl")).
		want(t, 1, "FAIL tampered event", "file: "+corpus("tampered-tool.jsonl"), "line: 2", "seq:  2")
	gh(t, dir, "", "audit", "verify", "-pubkey", corpus("pubkey.pem"), "-checkpoints", corpus("truncated.checkpoints"), corpus("truncated.jsonl")).
		want(t, 1, "FAIL truncated log", "line: 3")

	// The right key in the other spelling verifies too.
	pub, err := keys.ReadPublicKey(corpus("pubkey.pem"))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := keys.MarshalPublicKey(pub, keys.OpenSSH, "auditor")
	sshPub := write(t, dir, "audit.pub", string(line))
	gh(t, dir, "", "audit", "verify", "-pubkey", sshPub, "-checkpoints", corpus("intact-checkpoints.checkpoints"), corpus("intact-checkpoints.jsonl")).want(t, 0, "signed checkpoints matched: 3")

	// A wrong key: another key's public half. Exit 1, the checkpoint line.
	gh(t, dir, "", "keygen", "-out", filepath.Join(dir, "other")).want(t, 0)
	gh(t, dir, "", "audit", "verify", "-pubkey", filepath.Join(dir, "other.pub"), "-checkpoints", corpus("intact-checkpoints.checkpoints"), corpus("intact-checkpoints.jsonl")).
		want(t, 1, "FAIL forged checkpoint", "line: 1", "signature does not verify")

	// Unreadable inputs: exit 2.
	gh(t, dir, "", "audit", "verify", filepath.Join(dir, "missing.jsonl")).want(t, 2, "no such file")
	gh(t, dir, "", "audit", "verify", "-pubkey", filepath.Join(dir, "missing.pub"), corpus("intact.jsonl")).want(t, 2, "no such file")
	gh(t, dir, "", "audit", "verify", "-pubkey", corpus("intact.jsonl"), corpus("intact-checkpoints.jsonl")).want(t, 2, "not a public key")
	gh(t, dir, "", "audit", "verify", "-pubkey", filepath.Join(dir, "other"), corpus("intact-checkpoints.jsonl")).want(t, 2, `PEM block "OPENSSH PRIVATE KEY", want "PUBLIC KEY"`)
	gh(t, dir, "", "audit", "verify", "-checkpoints", "x", corpus("intact.jsonl")).want(t, 2, "-checkpoints needs -pubkey")
}

// TestKeygenKeySignsWhatAuditVerifyAccepts: the whole path a user takes.
// keygen with a passphrase, the library signs checkpoints with the key read
// back by package keys, audit verify checks them with FILE.pub.
func TestKeygenKeySignsWhatAuditVerifyAccepts(t *testing.T) {
	dir := t.TempDir()
	pass := write(t, dir, "pass", "s3cret phrase\n")
	key := filepath.Join(dir, "audit.key")
	gh(t, dir, "", "keygen", "-out", key, "-passphrase-file", pass).want(t, 0, "encrypted")
	if _, err := keys.ReadPrivateKey(key, nil); err == nil {
		t.Fatal("encrypted key read without its passphrase")
	}
	priv, err := keys.ReadPrivateKey(key, []byte("s3cret phrase"))
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "audit.jsonl")
	w, err := audit.Open(log, &audit.Options{Signer: priv, CheckpointEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := w.Write(context.Background(), &audit.Event{Decision: "ALLOW", Tool: "read_file"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	gh(t, dir, "", "audit", "verify", "-pubkey", key+".pub", log).want(t, 0, "OK 5 events", "signed checkpoints matched")
}
