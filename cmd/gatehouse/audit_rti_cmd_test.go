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

// What audit verify says of events no checkpoint signed: the events a
// Writer has written since its last checkpoint, or that someone appended
// (the chain has no key), are named, and the note Open left on finding
// such events is counted and listed.
func TestAuditVerifySaysWhatIsUnsigned(t *testing.T) {
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(nil)
	pem, _ := keys.MarshalPublicKey(priv.Public().(ed25519.PublicKey), keys.PEM, "")
	pub := write(t, dir, "audit.pub", string(pem))
	path := filepath.Join(dir, "audit.jsonl")
	o := &audit.Options{Signer: priv, CheckpointEvery: 100}
	ctx := context.Background()
	w, err := audit.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		w.Write(ctx, &audit.Event{Method: "tools/call", Tool: "echo", Decision: "ALLOW"})
	}
	w.Close() // signs seq 3
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, path).want(t, 0, "signed checkpoints matched: 1 (last at seq 3)")

	last := w.Last()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	forger, _ := audit.New(f, &audit.Options{Anchor: &last})
	forger.Write(ctx, &audit.Event{Method: "tools/call", Tool: "forged", Decision: "ALLOW"})
	forger.Write(ctx, &audit.Event{Method: "tools/call", Tool: "forged", Decision: "ALLOW"})
	f.Close()
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, path).
		want(t, 0, "not covered by a signed checkpoint: 2 event(s), seq 4..5")

	w, err = audit.Open(path, o) // notes events 4..5 as seq 6, then signs
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-events", path).
		want(t, 0, "repairs the writer recorded: 1", "event seq=6 decision=- trace_id=- span_id=- at="+path+":6 event=AUDIT_RECOVERED",
			"signed checkpoints matched: 2 (last at seq 6)")
}
