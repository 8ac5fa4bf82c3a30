package mcpredact_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// A value cut across content items, array elements or one key's values is
// rewritten in each share; values whole in one part, and parts that only
// begin like a value, are handled as before.
func TestRewriteResultPartsJoined(t *testing.T) {
	sc := vault.NewScrubber(map[string]string{"tok": "s3cr3t-value-42"})
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "a s3cr3t-va"}, &mcp.TextContent{Text: "lue-42 b"}, &mcp.TextContent{Text: "s3cr3t-value-4"}},
		StructuredContent: map[string]any{"lines": []any{"x s3cr", "3t-value-42"}, "rows": []any{map[string]any{"l": "s3c"}, map[string]any{"l": "r3t-value-42 y"}}},
	}
	out, err := mcpredact.RewriteResult(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	got := wire(t, out)
	if strings.Contains(strings.NewReplacer(`","`, "", `"},{"text":"`, "", `"},{"l":"`, "").Replace(got), "s3cr3t-value-42") {
		t.Fatalf("a split value survives joined: %s", got)
	}
	for _, want := range []string{`"a [REDACTED:vault:tok]"`, `"[REDACTED:vault:tok] b"`, `"s3cr3t-value-4"`, `"x [REDACTED:vault:tok]"`, `"[REDACTED:vault:tok] y"`} {
		if !strings.Contains(got, want) {
			t.Errorf("want %s in %s", want, got)
		}
	}
	clean := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "s3cr3t-va"}, &mcp.TextContent{Text: "lue-43"}}}
	if out, err := mcpredact.RewriteResult(sc, clean); err != nil || out != clean {
		t.Fatalf("near miss changed: %s, %v", wire(t, out), err)
	}
}

// BenchmarkRewriteResultItems: a clean result of four 1 KiB text items
// once a guard injected a vault secret (the items are scanned joined).
func BenchmarkRewriteResultItems(b *testing.B) {
	sc := vault.NewScrubber(map[string]string{"tok": "s3cr3t-value-42"})
	item := func() mcp.Content { return &mcp.TextContent{Text: strings.Repeat("clean text ", 93)} }
	res := &mcp.CallToolResult{Content: []mcp.Content{item(), item(), item(), item()}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mcpredact.RewriteResult(sc, res); err != nil {
			b.Fatal(err)
		}
	}
}
