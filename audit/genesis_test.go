package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// TestV1CheckpointsStillVerify: a log with checkpoints of format v1 (no
// genesis_hash), written before v2, verifies unchanged.
func TestV1CheckpointsStillVerify(t *testing.T) {
	dir := filepath.Join("testdata", "v1")
	pemBytes, err := os.ReadFile(filepath.Join(dir, "pubkey.pem"))
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(pemBytes)
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "intact-checkpoints.jsonl"))
	ck, _ := os.ReadFile(filepath.Join(dir, "intact-checkpoints.checkpoints"))
	if bytes.Contains(ck, []byte("genesis_hash")) {
		t.Fatal("testdata/v1 holds v2 checkpoints")
	}
	sum, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{PublicKey: k.(ed25519.PublicKey), Checkpoints: bytes.NewReader(ck)})
	if err != nil || sum.Checkpoints == 0 {
		t.Fatalf("v1 log: %+v, %v", sum, err)
	}
}

// TestCheckpointOfAnotherChainRefused: checkpoints carry the chain's genesis
// hash (v2), so a validly signed checkpoint of another chain, at a seq and
// event hash this chain also has, is refused by Verify and by Open.
func TestCheckpointOfAnotherChainRefused(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w := writeN(t, path, &audit.Options{Signer: priv, CheckpointEvery: 2}, 4)
	w.Close()
	log, _ := os.ReadFile(path)
	ckFile := path + ".checkpoints"
	ck, _ := os.ReadFile(ckFile)
	lines := strings.SplitAfter(strings.TrimSpace(string(ck)), "\n")
	first, err := audit.ParseCheckpoint([]byte(strings.TrimSpace(lines[0])))
	if err != nil || first.Genesis == "" || !strings.HasPrefix(first.Genesis, "sha256:") {
		t.Fatalf("checkpoint %+v, %v: no genesis_hash", first, err)
	}
	// Same seq and event hash, but signed as part of another chain.
	other := first
	other.Genesis = "sha256:" + strings.Repeat("ab", 32)
	if err := other.Sign(priv); err != nil {
		t.Fatal(err)
	}
	forged := string(other.AppendLine(nil)) + strings.Join(lines[1:], "")
	_, err = audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{PublicKey: pub, Checkpoints: strings.NewReader(forged)})
	var ce *audit.ChainError
	if !errors.As(err, &ce) || ce.Kind != audit.KindCheckpointMismatch {
		t.Fatalf("Verify with another chain's checkpoint: %v", err)
	}
	// The genuine checkpoints verify.
	if _, err := audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{PublicKey: pub, Checkpoints: bytes.NewReader(ck)}); err != nil {
		t.Fatal(err)
	}
	// Open refuses a last checkpoint of another chain.
	last, _ := audit.ParseCheckpoint([]byte(strings.TrimSpace(lines[len(lines)-1])))
	last.Genesis = other.Genesis
	last.Sign(priv)
	os.WriteFile(ckFile, []byte(strings.Join(lines[:len(lines)-1], "")+string(last.AppendLine(nil))), 0o600)
	if w, err := audit.Open(path, &audit.Options{Signer: priv}); !errors.As(err, &ce) || ce.Kind != audit.KindCheckpointMismatch {
		if w != nil {
			w.Close()
		}
		t.Fatalf("Open with another chain's last checkpoint: %v", err)
	}
}
