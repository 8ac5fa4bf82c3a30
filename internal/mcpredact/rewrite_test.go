package mcpredact_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// masker is a Rewriter that replaces "secret" with "XXXXXX".
type masker struct{}

func (masker) String(s string) string { return strings.ReplaceAll(s, "secret", "XXXXXX") }

func TestRewriteError(t *testing.T) {
	for _, tc := range []struct {
		in   error
		want string
	}{
		{&jsonrpc.Error{Code: -32000, Message: "m", Data: json.RawMessage(`{"k":"a secret"}`)}, `-32000 m {"k":"a XXXXXX"}`},
		{&jsonrpc.Error{Code: -32000, Message: "a secret", Data: json.RawMessage(`"secret\"`)}, `-32000 a XXXXXX `},
		{fmt.Errorf("wrapped secret: %w", &jsonrpc.Error{Code: -32009, Message: "x"}), `-32009 wrapped XXXXXX: x `},
		{errors.New("plain secret"), `plain XXXXXX`},
	} {
		got := mcpredact.RewriteError(masker{}, tc.in)
		var we *jsonrpc.Error
		s := got.Error()
		if errors.As(got, &we) {
			s = fmt.Sprintf("%d %s %s", we.Code, we.Message, string(we.Data)) // string(): from go1.27 a nil json.RawMessage formats as null
		}
		if s != tc.want {
			t.Errorf("%v: got %q, want %q", tc.in, s, tc.want)
		}
	}
	clean := &jsonrpc.Error{Code: 1, Message: "m", Data: json.RawMessage(`{}`)}
	if mcpredact.RewriteError(masker{}, clean) != error(clean) {
		t.Error("an error without anything to rewrite must be returned as it is")
	}
}

func TestRewriteResultAndOutgoing(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no"}}}
	if out, err := mcpredact.RewriteResult(masker{}, res); err != nil || out != mcp.Result(res) {
		t.Fatalf("clean result: %v %v", out, err)
	}
	res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a secret"}}, StructuredContent: map[string]any{"s": "secret"}}
	out, err := mcpredact.RewriteResult(masker{}, res)
	if err != nil || wire(t, out) == wire(t, res) || strings.Contains(wire(t, out), "secret") || res.Content[0].(*mcp.TextContent).Text != "a secret" {
		t.Fatalf("rewritten result %s, %v (original %s)", wire(t, out), err, wire(t, res))
	}
	res = &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"secret": []any{"x", "secret"}, "n": 1e300}}
	out, err = mcpredact.RewriteResult(masker{}, res)
	if err != nil || wire(t, out) != `{"content":[],"structuredContent":{"XXXXXX":["x","XXXXXX"],"n":1e+300}}` {
		t.Fatalf("member names and nested strings: %s, %v", wire(t, out), err)
	}
	req := &mcp.ServerRequest[*mcp.ProgressNotificationParams]{Params: &mcp.ProgressNotificationParams{ProgressToken: "t", Message: "secret"}}
	got, err := mcpredact.RewriteOutgoing(masker{}, "notifications/progress", req)
	if err != nil || got.GetParams().(*mcp.ProgressNotificationParams).Message != "XXXXXX" || req.Params.Message != "secret" {
		t.Fatalf("outgoing %v, %v", got, err)
	}
}

// BenchmarkRewriteResultClean is the cost a guard pays per result once it
// has injected a vault secret: a 1 KiB text result without the value.
func BenchmarkRewriteResultClean(b *testing.B) {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("clean text ", 100)}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mcpredact.RewriteResult(masker{}, res); err != nil {
			b.Fatal(err)
		}
	}
}
