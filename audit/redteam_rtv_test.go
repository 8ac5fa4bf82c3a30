package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
)

// A Writer given its own checkpoint stream (Options.Checkpoints) is not
// held to its last checkpoint's name by Open: run once as "mcp-a" and once
// as "mcp-b" (or as nobody), one chain carries checkpoints of two names.
// A Verify given either name refused it, but one given none accepted it
// and reported only the last name, which audit verify printed as the
// log's (red team rtv). The names of one stream must now agree, and none
// may be dropped after one is given, whatever VerifyOptions.Log says.
func TestRedteamCheckpointNamesChangeInOneStream(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	for _, second := range []string{"mcp-b", ""} {
		path := filepath.Join(t.TempDir(), "a.jsonl")
		var ck bytes.Buffer
		writeN(t, path, &audit.Options{Signer: priv, Checkpoints: &ck, CheckpointEvery: 2, LogName: "mcp-a"}, 4).Close()
		writeN(t, path, &audit.Options{Signer: priv, Checkpoints: &ck, CheckpointEvery: 2, LogName: second}, 4).Close()
		log, _ := os.ReadFile(path)
		for _, want := range []string{"", "mcp-a", "mcp-b"} {
			sum, err := verifyLog(log, ck.Bytes(), pub, want)
			if !errors.Is(err, &audit.ChainError{Kind: audit.KindWrongLog}) {
				t.Errorf("names mcp-a then %q, verified as %q: %+v, %v; want KindWrongLog", second, want, sum, err)
			}
		}
	}
	// Near miss: unnamed checkpoints (v2) before named ones are a server
	// given its name later, and verify with or without the name.
	path := filepath.Join(t.TempDir(), "a.jsonl")
	var ck bytes.Buffer
	writeN(t, path, &audit.Options{Signer: priv, Checkpoints: &ck, CheckpointEvery: 2}, 4).Close()
	writeN(t, path, &audit.Options{Signer: priv, Checkpoints: &ck, CheckpointEvery: 2, LogName: "mcp-a"}, 4).Close()
	log, _ := os.ReadFile(path)
	for _, want := range []string{"", "mcp-a"} {
		if sum, err := verifyLog(log, ck.Bytes(), pub, want); err != nil || sum.Log != "mcp-a" || sum.Checkpoints != 4 {
			t.Errorf("unnamed then mcp-a, verified as %q: %+v, %v", want, sum, err)
		}
	}
}

// With an Anchor, checkpoints before the stream's first event are skipped;
// one naming the expected log counted as naming the stream though it
// covered none of its events, so events made up after an anchor of A's
// log verified as A's under Log "mcp-a" with no checkpoint of theirs
// (red team rtv). A named checkpoint must now cover an event of the
// stream.
func TestRedteamSkippedNamedCheckpointNamesNothing(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	log, ck := signedLog(t, t.TempDir(), "a.jsonl", priv, "mcp-a", 4)
	sum, err := verifyLog(log, ck, pub, "mcp-a")
	if err != nil {
		t.Fatal(err)
	}
	anchor := audit.Anchor{Seq: sum.LastSeq, Hash: sum.LastHash}
	var forged bytes.Buffer
	fw, err := audit.New(&forged, &audit.Options{Anchor: &anchor})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		fw.Write(ctx, &audit.Event{Method: "tools/call", Tool: "forged", Decision: "ALLOW"})
	}
	verify := func(log, ck []byte) (audit.Summary, error) {
		return audit.Verify(bytes.NewReader(log), &audit.VerifyOptions{
			Anchor: &anchor, PublicKey: pub, Checkpoints: bytes.NewReader(ck), Log: "mcp-a"})
	}
	if sum, err := verify(forged.Bytes(), ck); !errors.Is(err, &audit.ChainError{Kind: audit.KindWrongLog}) {
		t.Errorf("events made up after an anchor of mcp-a's log, with its checkpoints: %+v, %v; want KindWrongLog", sum, err)
	}
	// Near miss: the server's own events after the anchor, covered by its
	// checkpoint.
	path := filepath.Join(t.TempDir(), "b.jsonl")
	os.WriteFile(path, log, 0o600)
	os.WriteFile(path+".checkpoints", ck, 0o600)
	writeN(t, path, &audit.Options{Signer: priv, CheckpointEvery: 2, LogName: "mcp-a"}, 2).Close()
	log2, _ := os.ReadFile(path)
	ck2, _ := os.ReadFile(path + ".checkpoints")
	if sum, err := verify(log2[len(log):], ck2); err != nil || sum.Checkpoints != 1 || sum.Log != "mcp-a" {
		t.Errorf("the server's own events after the anchor: %+v, %v", sum, err)
	}
}

// A log name with white space at either end reads as another name on a
// terminal ("mcp-a " is shown as mcp-a): ValidLogName refuses it, and
// Open with it (red team rtv). Inner spaces are still allowed.
func TestRedteamLogNameSpacesAtEnds(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	dir := t.TempDir()
	for _, name := range []string{"mcp-a ", " mcp-a", " ", "mcp-a  "} {
		if err := audit.ValidLogName(name); err == nil {
			t.Errorf("ValidLogName(%q) = nil", name)
		}
		if w, err := audit.Open(filepath.Join(dir, "x.jsonl"), &audit.Options{Signer: priv, LogName: name}); err == nil {
			w.Close()
			t.Errorf("Open with LogName %q: no error", name)
		}
	}
	if err := audit.ValidLogName("mcp a"); err != nil {
		t.Errorf("ValidLogName(\"mcp a\"): %v", err)
	}
}

// LogName without a Signer was taken and named nothing: no checkpoint
// carries it, so the operator's log is named nowhere and audit verify -log
// refuses it later (red team rtv). Open now refuses the pair.
func TestRedteamLogNameNeedsASigner(t *testing.T) {
	w, err := audit.Open(filepath.Join(t.TempDir(), "a.jsonl"), &audit.Options{LogName: "mcp-a"})
	if err == nil {
		w.Close()
		t.Fatal("Open with LogName and no Signer: no error")
	}
	if !strings.Contains(err.Error(), "Signer") {
		t.Errorf("Open with LogName and no Signer: %v, want an error naming Signer", err)
	}
}
