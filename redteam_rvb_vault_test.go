package gatehouse_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// Red team rvb (vault, class: a value written with layout). The guard
// scrubbed an injected vault value raw and in the encodings a tool echoes
// it in (JSON, URL, base64, hex), but only written in one piece: a handler
// that ran `base64` on a file holding the secret (GNU base64 wraps at 76
// columns, openssl and PEM at 64, MIME at 76 with CRLF), that dumped it in
// hex with a separator between bytes (fmt's "% x", a colon-separated
// fingerprint, `xxd -p` wrapped at 60 digits), or that upper-cased it,
// handed the agent every character of the value: the line break or the
// separator fell inside the encoded value, so no needle matched, and the
// agent only had to delete the layout to decode it.

// rvbSecret is long enough that a 76-column base64 line ends inside it.
const rvbSecret = "ghp_" + "R4nd0mT0kenValue1234567890abcdefXYZwq"

// rvbWrap cuts s into lines of w bytes, each ended by nl.
func rvbWrap(s string, w int, nl string) string {
	var b strings.Builder
	for i := 0; i < len(s); i += w {
		b.WriteString(s[i:min(i+w, len(s))])
		b.WriteString(nl)
	}
	return b.String()
}

// rvbSeparated writes the hex of s as pairs joined by sep.
func rvbSeparated(s, sep string) string {
	h := hex.EncodeToString([]byte(s))
	var pairs []string
	for i := 0; i < len(h); i += 2 {
		pairs = append(pairs, h[i:i+2])
	}
	return strings.Join(pairs, sep)
}

// rvbForms are the ways a handler writes out the value tok it was given.
var rvbForms = map[string]func(tok string) string{
	// `base64 deploy.env` (GNU coreutils: 76 columns).
	"base64-gnu": func(tok string) string {
		return rvbWrap(base64.StdEncoding.EncodeToString([]byte("# deploy settings\nDEPLOY_TOKEN="+tok+"\n")), 76, "\n")
	},
	// `openssl base64` and PEM bodies: 64 columns.
	"base64-pem": func(tok string) string {
		return "-----BEGIN DATA-----\n" + rvbWrap(base64.StdEncoding.EncodeToString([]byte("deploy token: "+tok+"\n")), 64, "\n") + "-----END DATA-----\n"
	},
	// MIME (RFC 2045): 76 columns, CRLF.
	"base64-mime": func(tok string) string {
		return rvbWrap(base64.StdEncoding.EncodeToString([]byte("Authorization: Bearer "+tok)), 76, "\r\n")
	},
	// URL-safe base64 wrapped, then indented as a YAML block scalar.
	"base64-yaml-block": func(tok string) string {
		return "data: |\n" + rvbWrap(base64.URLEncoding.EncodeToString([]byte("{\"token\":\""+tok+"\"}")), 40, "\n    ")
	},
	// The wrapped base64 as a JSON text: the line breaks are \n escapes.
	"base64-in-json-text": func(tok string) string {
		b, _ := json.Marshal(map[string]string{"file": rvbWrap(base64.StdEncoding.EncodeToString([]byte("DEPLOY_TOKEN="+tok)), 20, "\n")})
		return string(b)
	},
	// A mail tool returning the message it sent, quoted-printable: a soft
	// line break ("=" CRLF) at 76 columns, and "=" written "=3D".
	"quoted-printable": func(tok string) string {
		var b strings.Builder
		w := quotedprintable.NewWriter(&b)
		fmt.Fprintf(w, "Hello team, the deploy token for the release is %s= (keep it safe)", tok)
		w.Close()
		return "Content-Transfer-Encoding: quoted-printable\r\n\r\n" + b.String()
	},
	"hex-spaced": func(tok string) string { return fmt.Sprintf("% x", tok) },
	"hex-colons": func(tok string) string { return rvbSeparated(tok, ":") },
	"HEX-SPACED": func(tok string) string { return strings.ToUpper(rvbSeparated(tok, " ")) },
	// `xxd -p`: 60 hex digits a line.
	"hex-xxd-p": func(tok string) string { return rvbWrap(hex.EncodeToString([]byte("TOKEN="+tok)), 60, "\n") },
	"upper":     func(tok string) string { return "deployed with " + strings.ToUpper(tok) + " ok" },
	"lower":     func(tok string) string { return "deployed with " + strings.ToLower(tok) + " ok" },
	"wrapped":   func(tok string) string { return "token:\n" + rvbWrap(tok, 16, "\n") },
}

// rvbRig is the leak rig with a deploy tool that writes its injected token
// in the form its argument names, and a plain tool that returns its text.
func rvbRig(t *testing.T) *leakRig {
	t.Helper()
	r := newLeakRig(t)
	r.setSecret(t, rvbSecret)
	schema := json.RawMessage(`{"type":"object"}`)
	r.setup = func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Token, Form string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			f, ok := rvbForms[a.Form]
			if !ok {
				return nil, fmt.Errorf("no form %q", a.Form)
			}
			out := f(a.Token)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}, StructuredContent: map[string]any{"out": out}}, nil
		})
		s.AddTool(&mcp.Tool{Name: "plain", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil
		})
	}
	return r
}

// rvbDecoded reports whether text, with every space, tab, line break,
// colon, soft line break and \n escape deleted, holds tok in a form the
// agent can decode.
func rvbDecoded(text, tok string) bool {
	compact := strings.NewReplacer("=\r\n", "", "=\n", "", " ", "", "\t", "", "\r", "", "\n", "", ":", "", `\n`, "", `\r`, "").Replace(text)
	if strings.Contains(strings.ToLower(compact), strings.ToLower(tok)) ||
		strings.Contains(strings.ToLower(compact), hex.EncodeToString([]byte(tok))) {
		return true
	}
	// Every base64 alignment of tok's middle.
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for pad := 0; pad < 3; pad++ {
			enc := e.EncodeToString(append(make([]byte, pad), tok...))
			if core := enc[4 : len(enc)-4]; strings.Contains(compact, core) {
				return true
			}
		}
	}
	return false
}

func TestRedTeamRVB_VaultSecretWithLayout(t *testing.T) {
	r := rvbRig(t)
	c := r.client(t, "agent")
	for i, form := range []string{"base64-gnu", "base64-pem", "base64-mime", "base64-yaml-block", "base64-in-json-text", "quoted-printable",
		"hex-spaced", "hex-colons", "HEX-SPACED", "hex-xxd-p", "upper", "lower", "wrapped"} {
		t.Run(form, func(t *testing.T) {
			// The handler's own output holds the value (the rig is honest).
			if !rvbDecoded(rvbForms[form](rvbSecret), rvbSecret) {
				t.Fatalf("the form does not hold the secret")
			}
			res := c.callTool(i+1, "deploy", map[string]any{"token": vault.SecretRef("deploy_token"), "form": form})
			raw, _ := json.Marshal(res)
			if e := rpcErr(res); e != nil {
				t.Fatalf("deploy: %v", e)
			}
			var wire string // the result as the agent decodes it
			rr, _ := res["result"].(map[string]any)
			sc, _ := rr["structuredContent"].(map[string]any)
			wire = resultText(res) + "\n" + fmt.Sprint(sc["out"])
			if rvbDecoded(wire, rvbSecret) || rvbDecoded(string(raw), rvbSecret) {
				t.Fatalf("the injected secret came back to the agent in %s form:\n%s", form, wire)
			}
			if !strings.Contains(wire, "[REDACTED:vault:deploy_token]") {
				t.Fatalf("no redaction marker in %q", wire)
			}
		})
	}
}

// TestRedTeamRVB_VaultLayoutAcrossMessages: the output of `base64` sent a
// line per log or progress message, or a line per content item: each
// message holds a piece of the encoded value, and the line break between
// two pieces is layout.
func TestRedTeamRVB_VaultLayoutAcrossMessages(t *testing.T) {
	r := splitRig(t)
	r.setSecret(t, rvbSecret)
	c := r.client(t, "agent")
	if res := c.request("lvl", "logging/setLevel", map[string]any{"level": "debug"}); res["error"] != nil {
		t.Fatal(res)
	}
	id := 0
	for _, form := range []string{"base64-gnu", "base64-mime", "hex-xxd-p", "wrapped"} {
		note := rvbForms[form](rvbSecret)
		r.mu.Lock()
		r.note = note
		r.mu.Unlock()
		lines := strings.SplitAfter(note, "\n")
		for _, mode := range []string{"log", "progress", "items"} {
			for _, n := range []int{len(lines[0]), len(lines[0]) - 1, 13} {
				id++
				got := texts(t, c.collect(id, map[string]any{"name": "plain", "arguments": map[string]any{"mode": mode, "n": n},
					"_meta": map[string]any{"progressToken": id}}))
				if rvbDecoded(got, rvbSecret) {
					t.Fatalf("%s sent as %s every %d bytes: the agent read the secret:\n%s", form, mode, n, got)
				}
			}
		}
	}
	// Near misses: the same output for another value goes out as it is,
	// and so does output that ends with less than half of the value's
	// base64 (no answer to an agent guessing its start). A stream (log)
	// loses every chunk's end that is at least half of a value's start,
	// before it knows the rest: its other value differs in its first byte.
	lastDiffers := rvbSecret[:len(rvbSecret)-1] + "r"
	firstDiffers := "Q" + rvbSecret[1:]
	b64 := base64.StdEncoding.EncodeToString([]byte(rvbSecret))
	for _, nm := range []struct{ mode, note string }{
		{"items", rvbForms["base64-gnu"](lastDiffers)},
		{"items", rvbForms["hex-xxd-p"](lastDiffers)},
		{"log", rvbForms["base64-gnu"](firstDiffers)},
		{"log", rvbForms["hex-xxd-p"](firstDiffers)},
		{"log", "start:\n" + rvbWrap(b64[:len(b64)/2-4], 10, "\n")},
		{"items", "start:\n" + rvbWrap(b64[:len(b64)-6], 10, "\n")},
	} {
		note, mode := nm.note, nm.mode
		r.mu.Lock()
		r.note = note
		r.mu.Unlock()
		{
			id++
			got := texts(t, c.collect(id, map[string]any{"name": "plain", "arguments": map[string]any{"mode": mode, "n": 11},
				"_meta": map[string]any{"progressToken": id}}))
			if mode == "log" {
				got = strings.TrimSuffix(got, "sent")
			}
			if got != note {
				t.Errorf("near miss as %s changed:\n got %q\nwant %q", mode, got, note)
			}
		}
	}
}

// TestRedTeamRVB_VaultSecretAsNumber: a secret of digits (an account
// number, a numeric API key) that the handler parsed and returned as a
// JSON number, in structuredContent, _meta, a log message's data or a
// JSON-RPC error's data. The scrubbing rewrote every string and member
// name of what the guard sends and left numbers alone.
func TestRedTeamRVB_VaultSecretAsNumber(t *testing.T) {
	const digits = "4071839265533"
	r := newLeakRig(t)
	r.setSecret(t, digits)
	schema := json.RawMessage(`{"type":"object"}`)
	r.setup = func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Token string
				Where string
			}
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			var n int64
			if _, err := fmt.Sscan(a.Token, &n); err != nil {
				return nil, err
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}
			switch a.Where {
			case "structured":
				res.StructuredContent = map[string]any{"account": n, "nested": []any{map[string]any{"id": n}}}
			case "meta":
				res.Meta = mcp.Meta{"account": n}
			case "float":
				res.StructuredContent = map[string]any{"account": float64(n)}
			case "log":
				req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: map[string]any{"account": n}})
			case "error":
				return nil, &jsonrpc.Error{Code: -32000, Message: "failed", Data: json.RawMessage(fmt.Sprintf(`{"account":%d}`, n))}
			}
			return res, nil
		})
		s.AddTool(&mcp.Tool{Name: "plain", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
				StructuredContent: map[string]any{"count": 4071839265534, "ratio": 0.5, "id": 40718392655}}, nil
		})
	}
	c := r.client(t, "agent")
	if res := c.request("lvl", "logging/setLevel", map[string]any{"level": "debug"}); res["error"] != nil {
		t.Fatal(res)
	}
	for i, where := range []string{"structured", "meta", "float", "log", "error"} {
		got := strings.Join(c.collect(i+1, map[string]any{"name": "deploy", "arguments": map[string]any{"token": vault.SecretRef("deploy_token"), "where": where}}), "\n")
		if strings.Contains(got, digits) {
			t.Errorf("%s: the injected secret came back as a number:\n%s", where, got)
		}
	}
	// Near miss: other numbers go out as numbers.
	got := strings.Join(c.collect(9, map[string]any{"name": "plain"}), "\n")
	if !strings.Contains(got, `"structuredContent":{"count":4071839265534,"id":40718392655,"ratio":0.5}`) {
		t.Errorf("numbers that are no secret were changed:\n%s", got)
	}
}

// TestRedTeamRVB_VaultLayoutNearMisses: after an injection every result is
// searched with the layout deleted; text that does not hold an injected
// value goes out byte for byte, whatever its layout.
func TestRedTeamRVB_VaultLayoutNearMisses(t *testing.T) {
	r := rvbRig(t)
	c := r.client(t, "agent")
	if res := c.callTool(1, "deploy", map[string]any{"token": vault.SecretRef("deploy_token"), "form": "upper"}); rpcErr(res) != nil {
		t.Fatalf("deploy: %v", res)
	}
	other := "ghp_" + "R4nd0mT0kenValue1234567890abcdefXYZwr" // the last byte differs
	half := rvbSecret[:len(rvbSecret)/2]
	for i, text := range []string{
		"Deployed 3 services:\n  api: ok\n  web: ok\n  worker: ok\n",
		rvbWrap(base64.StdEncoding.EncodeToString([]byte("# deploy settings\nDEPLOY_TOKEN="+other+"\n")), 76, "\n"),
		rvbWrap(base64.StdEncoding.EncodeToString([]byte("half="+half+"\n")), 8, "\n"),
		fmt.Sprintf("% x", other),
		rvbSeparated(other, ":"),
		rvbWrap(hex.EncodeToString([]byte("TOKEN="+other)), 60, "\n"),
		strings.ToUpper(other),
		rvbWrap(other, 7, "\n"),
		"sha256: 9f:86:d0:81:88:4c:7d:65:9a:2f:ea:a0:c5:5a:d0:15:a3:bf:4f:1b:2b:0b:82:2c:d1:5d:6c:15:b0:f0:0a:08",
		"ghp_ R4nd0m T0ken Value 1234 (no, that is the start only)",
		"func main() {\n\tfmt.Println(\"hello, world\")\n}\n",
		"key: value\nlist:\n  - a\n  - b\n",
	} {
		got := resultText(c.callTool(i+2, "plain", map[string]any{"text": text}))
		if got != text {
			t.Errorf("text %d without an injected value was changed:\n got %q\nwant %q", i, got, text)
		}
	}
}
