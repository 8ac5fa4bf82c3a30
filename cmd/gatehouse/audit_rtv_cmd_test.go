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

// audit verify without -log printed the name of the last checkpoint as
// the log's, though earlier checkpoints of the same stream named another
// log (a Writer given its own checkpoint file is not held to the name by
// Open); it now fails, showing both names (red team rtv). A -log name
// with a space at an end is a usage error.
func TestAuditVerifyLogNameChanges(t *testing.T) {
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(nil)
	pem, _ := keys.MarshalPublicKey(priv.Public().(ed25519.PublicKey), keys.PEM, "")
	pub := write(t, dir, "audit.pub", string(pem))
	path := filepath.Join(dir, "audit.jsonl")
	ckPath := filepath.Join(dir, "own.checkpoints")
	ck, err := os.Create(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	for _, name := range []string{"mcp-a", "mcp-b"} {
		w, err := audit.Open(path, &audit.Options{Signer: priv, Checkpoints: ck, CheckpointEvery: 2, LogName: name})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := w.Write(context.Background(), &audit.Event{Method: "tools/call", Tool: "echo", Decision: "ALLOW"}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
	}
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-checkpoints", ckPath, path).
		want(t, 1, "FAIL checkpoint of another log", `want: "mcp-a"`, `got:  "mcp-b"`)
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-checkpoints", ckPath, "-log", "mcp-b", path).
		want(t, 1, "FAIL checkpoint of another log", `want: "mcp-b"`, `got:  "mcp-a"`)
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-checkpoints", ckPath, "-log", "mcp-a ", path).
		want(t, 2, "starts or ends with a space")
}
