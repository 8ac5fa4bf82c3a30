package gatehouse_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse"
)

// Red team, issue 15's variants, with the README's setup (built-in pack,
// no detect_encoding): a private key whose lines are separated by anything
// but plain newlines, and secrets split across the elements of a JSON
// array, reached the client whole.

// rtKeyLines is a PEM private key, line by line; its body lines are what
// must never reach the client.
var rtKeyLines = []string{
	"-----BEGIN RSA " + "PRIVATE KEY-----",
	"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw",
	"7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc",
	"zGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE",
	"-----END RSA " + "PRIVATE KEY-----",
}

// rtSecrets are the fragments whose presence in what the client received is
// a leak: each body line of the key, the AWS key's tail and the token.
var rtSecrets = []string{rtKeyLines[1][20:40], rtKeyLines[2][20:40], rtKeyLines[3][20:40], wireKey[8:], wireGH[8:]}

// numbered returns lines as a file viewer shows them: "  3| text".
func numbered(lines []string, sep string) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(strings.Repeat(" ", 4) + string(rune('1'+i)) + sep + l + "\n")
	}
	return b.String()
}

func rtLeakResults() map[string]*mcp.CallToolResult {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	structured := func(v any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see structured content"}}, StructuredContent: v}
	}
	rows := make([]any, len(rtKeyLines))
	lines := make([]any, len(rtKeyLines))
	for i, l := range rtKeyLines {
		rows[i] = map[string]any{"n": i + 1, "line": l}
		lines[i] = l
	}
	return map[string]*mcp.CallToolResult{
		"key with numbered lines":         text(numbered(rtKeyLines, "| ")),
		"key with arrow-numbered lines":   text(numbered(rtKeyLines, "\u2192")),
		"key lines joined by <br>":        text(strings.Join(rtKeyLines, "<br>")),
		"key as a JSON array in text":     text(`{"lines": ["` + strings.Join(rtKeyLines, `", "`) + `"]}`),
		"key as an array of lines":        structured(map[string]any{"path": "id_rsa", "lines": lines}),
		"key as rows of objects":          structured(map[string]any{"rows": rows}),
		"AWS key split across an array":   structured(map[string]any{"chunks": []any{"id " + wireKey[:9], wireKey[9:] + " end"}}),
		"token split across object rows":  structured([]any{map[string]any{"part": wireGH[:12]}, map[string]any{"part": wireGH[12:]}}),
		"key lines in result _meta array": {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, Meta: mcp.Meta{"lines": lines}},
	}
}

// rtReceived fails when what the client received holds a fragment of a
// planted secret.
func rtReceived(t *testing.T, what string, received any) {
	t.Helper()
	raw, err := json.Marshal(received)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rtSecrets {
		if strings.Contains(string(raw), s) || strings.Contains(string(raw), strings.ReplaceAll(s, "/", `\/`)) {
			t.Errorf("%s: the client received %q: %s", what, s, raw)
		}
	}
	if !strings.Contains(string(raw), "REDACTED:") {
		t.Errorf("%s: no marker in %s", what, raw)
	}
}

// rtServer is the README's guarded server: built-in DLP by default, one
// tool "leak" that returns res[name] for {"case": name}.
func rtServer(t *testing.T, res map[string]*mcp.CallToolResult) *mcp.Server {
	t.Helper()
	g := mustGuard(t, mustPolicy(t, wirePol), &gatehouse.Options{DenyAsToolResult: true})
	s := mcp.NewServer(&mcp.Implementation{Name: "rt", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Case string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return res[in.Case], nil
	})
	g.Install(s)
	return s
}

func TestRedTeam22_SplitKeysInMemory(t *testing.T) {
	res := rtLeakResults()
	_, cs := connectAt(t, rtServer(t, res), "agent", nil, "")
	for name := range res {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rtReceived(t, name, got)
	}
}

// Over go-sdk's stateless streamable HTTP (2026-07-28 style, one POST per
// request), as a real client decodes it.
func TestRedTeam22_SplitKeysStatelessHTTP(t *testing.T) {
	res := rtLeakResults()
	s := rtServer(t, res)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	t.Cleanup(hs.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	for _, name := range []string{"key with numbered lines", "key as an array of lines", "AWS key split across an array"} {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rtReceived(t, name, got)
	}
}

// Near misses: arrays and numbered listings that hold no secret reach the
// client unchanged, joined scanning or not.
func TestRedTeam22_NearMissesUnchanged(t *testing.T) {
	// A public key's body starts as SubjectPublicKeyInfo does (MIIBIjANBg...);
	// the private key's first line (MIIEpAIBAAKCAQEA: version 0, then the
	// modulus, an RSAPrivateKey) is a private key's wherever it is written
	// (red team rtk, private-key-base64).
	pub := []string{"-----BEGIN PUBLIC KEY-----", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgO", rtKeyLines[2], "-----END PUBLIC KEY-----"}
	pubAny := make([]any, len(pub))
	for i, l := range pub {
		pubAny[i] = l
	}
	cases := map[string]*mcp.CallToolResult{
		"numbered public key": {Content: []mcp.Content{&mcp.TextContent{Text: numbered(pub, "| ")}}},
		"public key lines":    {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{"lines": pubAny}},
		"words and ids": {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{
			"tags": []any{"password", "reset", "AKIA", "docs"}, "rows": []any{map[string]any{"k": "secret"}, map[string]any{"k": "=value"}}}},
		"two pictures": {Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte("AKIA")}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("Z7Q3")}}},
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name, want := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s: changed:\n got %s\nwant %s", name, g, w)
		}
	}
}
