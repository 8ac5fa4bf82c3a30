package gatehouse_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team of the vault scrubbing fix (fb7974d, 0c151c4): every value the
// guard injected is scrubbed from everything it sends after, but each
// string on its own. A handler that streams what it reads (a command's
// stdout sent as log messages or progress, in chunks whose boundaries fall
// anywhere) or returns it as several content items (pages of a file) cut
// the value in two: neither piece is the value, both went out, and the
// agent joined them.

// splitRig is leakRig whose plain tool sends the stored note (which holds
// the injected secret once note_put ran) cut every n bytes: as log
// messages, progress messages, or content items, as args say.
func splitRig(t *testing.T) *leakRig {
	r := newLeakRig(t)
	base := r.setup
	r.setup = func(s *mcp.Server) {
		base(s)
		s.AddTool(&mcp.Tool{Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Mode string
				N    int
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			r.mu.Lock()
			note := r.note
			r.mu.Unlock()
			res := &mcp.CallToolResult{}
			for i := 0; i < len(note); i += a.N {
				chunk := note[i:min(i+a.N, len(note))]
				switch a.Mode {
				case "log":
					req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "stdout", Data: chunk})
				case "progress":
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: chunk})
				case "items":
					res.Content = append(res.Content, &mcp.TextContent{Text: chunk})
				}
			}
			if len(res.Content) == 0 {
				res.Content = []mcp.Content{&mcp.TextContent{Text: "sent"}}
			}
			return res, nil
		})
	}
	return r
}

// texts returns the texts the client read, in order: log data, progress
// messages and the result's content items.
func texts(t *testing.T, msgs []string) string {
	var b strings.Builder
	for _, m := range msgs {
		var v struct {
			Method string
			Params struct {
				Data    any
				Message string
			}
			Result struct{ Content []struct{ Text string } }
		}
		if err := json.Unmarshal([]byte(m), &v); err != nil {
			t.Fatal(err)
		}
		switch v.Method {
		case "notifications/message":
			s, _ := v.Params.Data.(string)
			b.WriteString(s)
		case "notifications/progress":
			b.WriteString(v.Params.Message)
		}
		for _, c := range v.Result.Content {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

func TestRedTeamRTF_VaultSecretSplitAcrossMessages(t *testing.T) {
	r := splitRig(t)
	c := r.client(t, "agent")
	if res := c.request("lvl", "logging/setLevel", map[string]any{"level": "debug"}); res["error"] != nil {
		t.Fatal(res)
	}
	if res := c.callTool(1, "note_put", map[string]any{"text": vault.SecretRef("deploy_token")}); resultText(res) != "stored" {
		t.Fatalf("note_put: %v", res)
	}
	id := 2
	for _, mode := range []string{"log", "progress", "items"} {
		for _, n := range []int{1, 2, 5, 13, 17, 20} {
			id++
			got := texts(t, c.collect(id, map[string]any{"name": "plain", "arguments": map[string]any{"mode": mode, "n": n},
				"_meta": map[string]any{"progressToken": id}}))
			// A stream's first bytes leave before the rest is known: less
			// than half of them, never half in a row.
			half := (len(leakSecret) + 1) / 2
			for i := 0; i+half <= len(leakSecret); i++ {
				if strings.Contains(got, leakSecret[i:i+half]) {
					t.Fatalf("%s cut every %d bytes: the agent read %q of the secret: %q", mode, n, leakSecret[i:i+half], got)
				}
			}
			if !strings.Contains(got, `{"text":`) || !strings.Contains(got, "[REDACTED:vault:deploy_token]") {
				t.Fatalf("%s cut every %d bytes: the text around the secret or the marker is missing: %q", mode, n, got)
			}
		}
	}
	// Near misses: a stream with short pieces of the secret, and items
	// that hold all of it but its last byte, go out as they are.
	for _, nm := range []struct{ mode, text string }{
		{"log", "s3c s3c end s3 x"},
		{"progress", "s3c s3c end s3 x"},
		// Nor is a stream that ends with less than half of the secret
		// (no answer to an agent guessing its start byte by byte).
		{"log", "guess " + leakSecret[:len(leakSecret)/2-1]},
		{"items", leakSecret[:len(leakSecret)-1] + "3 and " + leakSecret[:8]},
	} {
		r.mu.Lock()
		r.note = nm.text
		r.mu.Unlock()
		id++
		if got := texts(t, c.collect(id, map[string]any{"name": "plain", "arguments": map[string]any{"mode": nm.mode, "n": 3},
			"_meta": map[string]any{"progressToken": id}})); got != nm.text+map[bool]string{true: "", false: "sent"}[nm.mode == "items"] {
			t.Fatalf("near miss %s: %q, want %q", nm.mode, got, nm.text)
		}
	}
}

// AskConsent injected with Vault.Inject and then asked Vault.Scrubber for
// the scrubber, which reads the vault again: a secret rotated in between
// (a rotation job calling Set while an approved call was being injected;
// here the audit hook rotates it, to make the moment certain) went to the
// handler with its old value and was scrubbed by its new one, and the
// handler's echo of the old value reached the agent whole.
func TestRedTeamRTF_VaultRotatedDuringInjection(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := consent.NewSigner(priv)
	master := make([]byte, 32)
	rand.Read(master)
	var vlt *vault.Vault
	const rotated = "r0tated-" + "value-0099"
	vlt, err := vault.New(master, &vault.Options{OnEvent: func(context.Context, consent.Event) error {
		return vlt.Set("deploy_token", rotated)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := vlt.Set("deploy_token", leakSecret); err != nil {
		t.Fatal(err)
	}
	if err := vlt.Bind("deploy_token", []string{"deploy"}, nil); err != nil {
		t.Fatal(err)
	}
	nonces, _ := consent.NewMemoryNonceStore(nil)
	asker, err := consent.NewAsker(&scriptedChannel{reply: consent.Reply{Decision: consent.Approved, Approver: "alice"}}, signer, nonces, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := mustGuard(t, mustPolicy(t, leakPolicy), &gatehouse.Options{Ask: &gatehouse.AskOptions{Timeout: 2 * time.Second, Asker: gatehouse.AskConsent(asker, vlt)}})
	c := connectRaw(t, serve(t, g, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed with " + string(req.Params.Arguments)}}}, nil
		})
	}))
	if res := c.request("i", "initialize", initializeParams("2025-06-18")); rpcErr(res) != nil {
		t.Fatal(res)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	got := resultText(c.callTool(1, "deploy", map[string]any{"token": vault.SecretRef("deploy_token")}))
	if strings.Contains(got, leakSecret) || !strings.Contains(got, "[REDACTED:vault:deploy_token]") {
		t.Fatalf("the value injected before the rotation came back: %q", got)
	}
}
