package main_test

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/audit"
	"github.com/gatehouse-dev/gatehouse/keys"
)

// audit verify -log NAME refuses the log of another server signed with
// the same key (red team rtt), prints the name the checkpoints carry, and
// says when they carry none; a name with a newline is a usage error.
func TestAuditVerifyLogName(t *testing.T) {
	dir := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(nil)
	pem, _ := keys.MarshalPublicKey(priv.Public().(ed25519.PublicKey), keys.PEM, "")
	pub := write(t, dir, "audit.pub", string(pem))
	logs := map[string]string{}
	for _, name := range []string{"mcp-a", "mcp-b", ""} {
		path := filepath.Join(dir, "log"+name+".jsonl")
		w, err := audit.Open(path, &audit.Options{Signer: priv, CheckpointEvery: 2, LogName: name})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := w.Write(context.Background(), &audit.Event{Method: "tools/call", Tool: "echo", Decision: "ALLOW"}); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		logs[name] = path
	}
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-log", "mcp-a", logs["mcp-a"]).
		want(t, 0, "OK 3 events", "log named by the checkpoints: mcp-a")
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-log", "mcp-a", logs["mcp-b"]).
		want(t, 1, "FAIL checkpoint of another log", `want: "mcp-a"`, `got:  "mcp-b"`)
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, logs["mcp-b"]).
		want(t, 0, "log named by the checkpoints: mcp-b")
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, logs[""]).
		want(t, 0, "the checkpoints name no log")
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-log", "mcp-a", logs[""]).
		want(t, 1, "FAIL checkpoint of another log")
	gh(t, dir, "", "audit", "verify", "-pubkey", pub, "-log", "a\nb", logs["mcp-a"]).want(t, 2, "log name")
	gh(t, dir, "", "audit", "verify", "-log", "mcp-a", logs["mcp-a"]).want(t, 2, "-log needs -pubkey")
}
