package main_test

import (
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/keys"
)

// A log written through a symlink (audit.Open follows it, so its rotated
// files and checkpoints are the target's) verifies when the verifier is
// given the link, as when it is given the target: every file, and the
// target's checkpoints.
func TestAuditVerifyThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(nil)
	pem, err := keys.MarshalPublicKey(priv.Public().(ed25519.PublicKey), keys.PEM, "")
	if err != nil {
		t.Fatal(err)
	}
	pub := write(t, dir, "audit.pub", string(pem))
	real, link := filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("real.jsonl", link); err != nil {
		t.Fatal(err)
	}
	w, err := audit.Open(link, &audit.Options{MaxLineBytes: 400, MaxFileBytes: 500, Signer: priv, CheckpointEvery: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := w.Write(context.Background(), &audit.Event{Method: "tools/call", Tool: "echo", Decision: "ALLOW"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, log := range []string{real, link} {
		gh(t, dir, "", "audit", "verify", "-pubkey", pub, log).
			want(t, 0, "OK 5 events in 5 file(s), seq 1..5", "signed checkpoints matched: 3 (last at seq 5)")
	}
}
