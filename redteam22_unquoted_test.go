package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team, issue 15: a secret-like name with an unquoted value after a
// colon or a space (YAML and properties files, HTTP headers as curl -v
// prints them, command-line flags in ps output or shell history) was
// redacted only for passwords; an API key, client secret or token written
// that way reached the client. So did "Authorization: Token ...".
func TestRedTeam22_UnquotedSecretValues(t *testing.T) {
	const v = "q7Vd9XkL2mPz8RtY4wNc6HbJ"
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	cases := map[string]*mcp.CallToolResult{
		"curl -v":           text("> GET /v1/orders HTTP/1.1\n> Host: api.example.com\n> X-Api-Key: " + v + "\n> Accept: */*\n"),
		"application.yml":   text("spring:\n  security:\n    oauth2:\n      client:\n        registration:\n          app:\n            client-id: orders\n            client-secret: " + v + "\n"),
		"ps output":         text("deploy   4242  0.1  ./sync --api-key " + v + " --region eu-west-1\n"),
		"shell history":     text("  501  export STRIPE=1\n  502  ./cli login --token=" + v + "\n"),
		"token scheme":      text("Authorization: Token " + v),
		"structured config": {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{"settings": "access_token: " + v}},
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(got); strings.Contains(string(raw), v[4:20]) || !strings.Contains(string(raw), "[REDACTED:") {
			t.Errorf("%s: the client received the value: %s", name, raw)
		}
	}
}

// Near misses: identifiers, templates and prose after the same names pass.
func TestRedTeam22_UnquotedNearMisses(t *testing.T) {
	texts := []string{
		"\t\tmaxTokenSize: MaxScanTokenSize,\n",
		"tokenizer: bert-base-uncased\n",
		"token: ${{ secrets.GITHUB_TOKEN }}\n",
		"secretKeyRef: db-credentials-password\n",
		"api_key: YOUR_API_KEY_HERE\n",
		"the token expires after 3600 seconds\n",
	}
	cases := map[string]*mcp.CallToolResult{}
	for i, s := range texts {
		cases[string(rune('a'+i))] = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name, want := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatal(err)
		}
		if g := got.Content[0].(*mcp.TextContent).Text; g != want.Content[0].(*mcp.TextContent).Text {
			t.Errorf("%q became %q", want.Content[0].(*mcp.TextContent).Text, g)
		}
	}
}
