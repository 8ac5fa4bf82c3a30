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

// signedLog writes n events to a new log at dir/name with the given key and
// log name, and returns the log and its checkpoints.
func signedLog(t *testing.T, dir, name string, priv ed25519.PrivateKey, logName string, n int) (log, ck []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	writeN(t, path, &audit.Options{Signer: priv, CheckpointEvery: 2, LogName: logName}, n).Close()
	log, _ = os.ReadFile(path)
	ck, _ = os.ReadFile(path + ".checkpoints")
	return log, ck
}

func verifyLog(log, ck []byte, pub ed25519.PublicKey, name string) (audit.Summary, error) {
	return audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{PublicKey: pub, Checkpoints: bytes.NewReader(ck), Log: name})
}

// Checkpoints named no log, so where two servers signed with one key, one
// server's log swapped whole (events and checkpoints) for the other's
// verified (red team rtt). A checkpoint now names its log (format v3,
// Options.LogName) under the signature, and a Verify given the expected
// name (VerifyOptions.Log) refuses another's with KindWrongLog.
func TestRedteamSwappedLogOfAnotherServerRefused(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	dir := t.TempDir()
	logA, ckA := signedLog(t, dir, "a.jsonl", priv, "mcp-a", 4)
	logB, ckB := signedLog(t, dir, "b.jsonl", priv, "mcp-b", 6)
	if sum, err := verifyLog(logA, ckA, pub, "mcp-a"); err != nil || sum.Log != "mcp-a" || sum.Checkpoints != 2 {
		t.Fatalf("server A's own log: %+v, %v", sum, err)
	}
	_, err := verifyLog(logB, ckB, pub, "mcp-a")
	if !errors.Is(err, &audit.ChainError{Kind: audit.KindWrongLog}) || !strings.Contains(err.Error(), `"mcp-b"`) {
		t.Fatalf("server B's log verified as A's: %v", err)
	}
	// Without an expected name it verifies, and the summary says whose.
	if sum, err := verifyLog(logB, ckB, pub, ""); err != nil || sum.Log != "mcp-b" {
		t.Errorf("B's log without an expected name: %+v, %v", sum, err)
	}
	// Logs of servers that name none (v2 checkpoints) are refused too.
	logC, ckC := signedLog(t, dir, "c.jsonl", priv, "", 4)
	if _, err := verifyLog(logC, ckC, pub, "mcp-a"); !errors.Is(err, &audit.ChainError{Kind: audit.KindWrongLog}) {
		t.Errorf("a log naming no server verified as A's: %v", err)
	}
	// Open refuses to continue another server's log, or to stop naming it.
	for _, name := range []string{"mcp-a", ""} {
		_, err := audit.Open(filepath.Join(dir, "b.jsonl"), &audit.Options{Signer: priv, LogName: name})
		if !errors.Is(err, &audit.ChainError{Kind: audit.KindWrongLog}) {
			t.Errorf("Open of B's log with LogName %q: %v, want KindWrongLog", name, err)
		}
	}
}

// The name is under the signature: changed, or dropped (a v2 checkpoint
// made of a v3 one), the checkpoint no longer verifies.
func TestRedteamLogNameIsSigned(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	log, ck := signedLog(t, t.TempDir(), "b.jsonl", priv, "mcp-b", 2)
	line := bytes.TrimSuffix(ck, []byte("\n"))
	cp, err := audit.ParseCheckpoint(line)
	if err != nil || cp.Log != "mcp-b" || !cp.VerifySignature(pub) {
		t.Fatalf("%+v, %v", cp, err)
	}
	for _, name := range []string{"mcp-a", ""} {
		forged := cp
		forged.Log = name
		if forged.VerifySignature(pub) {
			t.Errorf("log %q: the signature still verifies", name)
		}
		_, err := verifyLog(log, forged.AppendLine(nil), pub, name)
		if !errors.Is(err, &audit.ChainError{Kind: audit.KindCheckpointForged}) {
			t.Errorf("log %q: %v, want KindCheckpointForged", name, err)
		}
	}
}

// A log whose checkpoints name no log (v2, written before LogName) still
// verifies as before; a server given a name later continues it, and the
// named checkpoints follow the unnamed ones. An unnamed one after a named
// one is refused where the name is expected.
func TestLogNameOldCheckpointsAndUpgrade(t *testing.T) {
	dir := filepath.Join("testdata", "v2")
	pemBytes, _ := os.ReadFile(filepath.Join(dir, "pubkey.pem"))
	blk, _ := pem.Decode(pemBytes)
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "intact-checkpoints.jsonl"))
	ck, _ := os.ReadFile(filepath.Join(dir, "intact-checkpoints.jsonl.checkpoints"))
	if !bytes.Contains(ck, []byte("genesis_hash")) || bytes.Contains(ck, []byte(`"log"`)) {
		t.Fatal("testdata/v2 does not hold v2 checkpoints")
	}
	if sum, err := verifyLog(log, ck, k.(ed25519.PublicKey), ""); err != nil || sum.Checkpoints == 0 || sum.Log != "" {
		t.Fatalf("v2 log: %+v, %v", sum, err)
	}

	pub, priv, _ := ed25519.GenerateKey(nil)
	path := filepath.Join(t.TempDir(), "a.jsonl")
	writeN(t, path, &audit.Options{Signer: priv, CheckpointEvery: 2}, 4).Close()
	writeN(t, path, &audit.Options{Signer: priv, CheckpointEvery: 2, LogName: "mcp-a"}, 4).Close()
	log, _ = os.ReadFile(path)
	ck, _ = os.ReadFile(path + ".checkpoints")
	if sum, err := verifyLog(log, ck, pub, "mcp-a"); err != nil || sum.Log != "mcp-a" {
		t.Fatalf("a log named after an upgrade: %+v, %v", sum, err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(ck), "\n"), "\n")
	named := strings.Join(lines[len(lines)-2:], "") + "\n"
	cp, _ := audit.ParseCheckpoint([]byte(strings.TrimSpace(lines[len(lines)-1])))
	cp.Log, cp.Seq = "", cp.Seq+1
	if err := cp.Sign(priv); err != nil {
		t.Fatal(err)
	}
	if _, err := verifyLog(log, append([]byte(named), cp.AppendLine(nil)...), pub, "mcp-a"); !errors.Is(err, &audit.ChainError{Kind: audit.KindWrongLog}) {
		t.Errorf("an unnamed checkpoint after named ones: %v, want KindWrongLog", err)
	}
}

// A log name is bounded printable ASCII: a newline, a quote, a backslash,
// an escape sequence, a non-ASCII look-alike or more than MaxLogName bytes
// is refused at Open and by Verify, and a checkpoint line carrying one is
// malformed; the longest name works.
func TestLogNameOddBytesRefused(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	dir := t.TempDir()
	for _, name := range []string{"a\nb", `a"b`, `a\b`, "\x1b[31mred", "mcp-\u0430", strings.Repeat("x", audit.MaxLogName+1), "tab\there"} {
		if _, err := audit.Open(filepath.Join(dir, "x.jsonl"), &audit.Options{Signer: priv, LogName: name}); err == nil || !strings.Contains(err.Error(), "log name") {
			t.Errorf("Open with LogName %q: %v", name, err)
		}
		if _, err := audit.Verify(strings.NewReader(""), &audit.VerifyOptions{PublicKey: priv.Public().(ed25519.PublicKey), Checkpoints: strings.NewReader(""), Log: name}); err == nil {
			t.Errorf("Verify with Log %q: no error", name)
		}
	}
	line := `{"event_hash":"sha256:00","log":"a\nb","seq":1,"signature":"","timestamp":"t"}`
	if _, err := audit.ParseCheckpoint([]byte(line)); err == nil {
		t.Errorf("a checkpoint whose log holds a newline parsed")
	}
	long := strings.Repeat("x", audit.MaxLogName)
	pub := priv.Public().(ed25519.PublicKey)
	log, ck := signedLog(t, dir, "long.jsonl", priv, long, 2)
	if sum, err := verifyLog(log, ck, pub, long); err != nil || sum.Log != long {
		t.Errorf("the longest name: %v", err)
	}
}
