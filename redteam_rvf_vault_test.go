package gatehouse_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team rvf (vault, class: a value written other than byte for byte).
// After red team rvb the guard scrubbed an injected value with line
// breaks, spaces, colons and \n escapes inside it, upper- or lower-cased
// whole. A handler that wrote it with any other layout a reader deletes
// as readily (a no-break or zero-width space, U+2028, a \u000a escape, an
// HTML <br>, hex bytes joined by "-"), with its bytes escaped (\x67,
// &#103;, xxd -i's "0x67, "), or with some letters in the other case
// handed the agent the value.

// rvfEach writes every byte of s with f.
func rvfEach(s string, f func(c byte) string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(f(s[i]))
	}
	return b.String()
}

var rvfForms = map[string]func(tok string) string{
	"nbsp":      func(tok string) string { return rvbWrap(tok, 9, "\u00a0") },
	"u2028":     func(tok string) string { return rvbWrap(hex.EncodeToString([]byte(tok)), 16, "\u2028") },
	"zwsp":      func(tok string) string { return rvbWrap(tok, 3, "\u200b") },
	"u000a":     func(tok string) string { return rvbWrap(tok, 9, `\u000a`) },
	"br":        func(tok string) string { return rvbWrap(tok, 9, "<br>") },
	"hex-dash":  func(tok string) string { return rvbSeparated(tok, "-") },
	"x-escapes": func(tok string) string { return rvfEach(tok, func(c byte) string { return fmt.Sprintf(`\x%02x`, c) }) },
	"entities":  func(tok string) string { return rvfEach(tok, func(c byte) string { return fmt.Sprintf("&#%d;", c) }) },
	"xxd-i": func(tok string) string {
		return rvbWrap(rvfEach(tok, func(c byte) string { return fmt.Sprintf("0x%02x, ", c) }), 72, "\n  ")
	},
	"half-upper": func(tok string) string {
		return strings.ToUpper(tok[:len(tok)/2]) + tok[len(tok)/2:]
	},
}

func TestRedTeamRVF_VaultSecretOtherLayout(t *testing.T) {
	r := newLeakRig(t)
	r.setSecret(t, rvbSecret)
	schema := json.RawMessage(`{"type":"object"}`)
	r.setup = func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Token, Form string
				Split       bool
			}
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			out := rvfForms[a.Form](a.Token)
			if a.Split { // two content items, cut in the middle
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out[:len(out)/2]}, &mcp.TextContent{Text: out[len(out)/2:]}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "out: " + out}}, StructuredContent: map[string]any{"out": out}}, nil
		})
		s.AddTool(&mcp.Tool{Name: "plain", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil
		})
	}
	c := r.client(t, "agent")
	id := 0
	for form := range rvfForms {
		for _, split := range []bool{false, true} {
			id++
			res := c.callTool(id, "deploy", map[string]any{"token": vault.SecretRef("deploy_token"), "form": form, "split": split})
			if e := rpcErr(res); e != nil {
				t.Fatalf("deploy: %v", e)
			}
			raw, _ := json.Marshal(res)
			if got := resultText(res); !strings.Contains(string(raw), "[REDACTED:vault:deploy_token]") {
				t.Errorf("%s (split %v): the injected secret came back to the agent:\n%q", form, split, got)
			}
		}
	}
	// Near misses: the same forms of another value, and text with the
	// layout, escapes and separators, go out as they are.
	other := rvbSecret[:10] + "Q" + rvbSecret[11:]
	texts := []string{
		"MAC 00:11:22:33:44:55, IPv6 fe80::1ff:fe23:4567:890a, at 2026-11-25T02:32:51.123Z",
		`C:\x41\new <br> &#65; 0x41 %41` + "\u00a0\u2028\u200b",
	}
	for _, f := range rvfForms {
		texts = append(texts, f(other))
	}
	for _, text := range texts {
		id++
		if got := resultText(c.callTool(id, "plain", map[string]any{"text": text})); got != text {
			t.Errorf("text without an injected value was changed:\n got %q\nwant %q", got, text)
		}
	}
}
