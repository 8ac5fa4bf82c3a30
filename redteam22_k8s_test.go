package gatehouse_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team, issue 15: the Kubernetes Secret rule needed "kind: Secret"
// before the data block, at most 10 entries of at most 100 bytes, in YAML.
// kubectl prints fields in alphabetical order (data before kind), in YAML
// or JSON, and a TLS Secret's values are kilobytes long; a Kubernetes tool
// that returns the API's objects as structured content gives the scanner
// one base64 string at a time. Each of these reached the client.
func TestRedTeam22_KubernetesSecrets(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	creds := b64("Fake-Pa55word-notreal")
	tlsKey := b64(strings.Join(rtKeyLines, "\n"))
	many := ""
	for i := range 12 {
		many += "  key" + string(rune('a'+i)) + ": " + creds + "\n"
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	object := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "db"}, "data": map[string]any{"creds": creds, "tls.key": tlsKey}}
	cases := map[string]*mcp.CallToolResult{
		"kubectl get -o yaml": text("apiVersion: v1\ndata:\n  creds: " + creds + "\n  tls.key: " + tlsKey + "\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"),
		"kubectl get -o json": text(`{"apiVersion":"v1","data":{"creds":"` + creds + `","tls.key":"` + tlsKey + `"},"kind":"Secret","metadata":{"name":"db"}}`),
		"a list, -o yaml":     text("apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    creds: " + creds + "\n  kind: Secret\n  metadata:\n    name: db\nkind: List\n"),
		"12 entries":          text("kind: Secret\ndata:\n" + many),
		"TLS Secret manifest": text("apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: " + b64(strings.Repeat("-----BEGIN CERTIFICATE-----\n", 9)) + "\n  tls.key: " + tlsKey + "\n"),
		"structured object":   {Content: []mcp.Content{&mcp.TextContent{Text: "1 secret"}}, StructuredContent: object},
		"structured list":     {Content: []mcp.Content{&mcp.TextContent{Text: "1 secret"}}, StructuredContent: map[string]any{"kind": "SecretList", "items": []any{object}}},
		"structured in _meta": {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, Meta: mcp.Meta{"object": object}},
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := json.Marshal(got)
		if strings.Contains(string(raw), creds) || strings.Contains(string(raw), tlsKey[:40]) || !strings.Contains(string(raw), "[REDACTED:") {
			t.Errorf("%s: the client received a Secret's data: %s", name, raw)
		}
	}
}

// Near miss: a ConfigMap's data, printed or structured, is not a secret.
func TestRedTeam22_KubernetesConfigMapUnchanged(t *testing.T) {
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"level": "info", "blob": "QUJDREVGR0hJSktMTU5PUA=="}}
	cases := map[string]*mcp.CallToolResult{
		"yaml":       {Content: []mcp.Content{&mcp.TextContent{Text: "apiVersion: v1\ndata:\n  level: info\nkind: ConfigMap\nmetadata:\n  name: cfg\n"}}},
		"structured": {Content: []mcp.Content{&mcp.TextContent{Text: "cm"}}, StructuredContent: cm},
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(got); strings.Contains(string(raw), "REDACTED") {
			t.Errorf("%s: redacted: %s", name, raw)
		}
	}
}
