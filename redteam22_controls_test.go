package gatehouse_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team, issue 15: DLP's normalized view dropped invisible runes above
// ASCII only, so a key with an ASCII control inside it (NUL, DEL, a
// backspace-free escape) or split by the colour codes of a terminal
// (grep --color=always highlights the pattern it matched, so its output
// is "AKIA" ESC[m ESC[K "Z7Q3...") reached the client, where a terminal or
// a model reads it whole.

func TestRedTeam22_ControlsInsideSecrets(t *testing.T) {
	const (
		hl  = "\x1b[01;31m\x1b[K"
		off = "\x1b[m\x1b[K"
	)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	cases := map[string]*mcp.CallToolResult{
		"grep --color=always":   text("credentials:2:aws_access_key_id = " + hl + wireKey[:4] + off + wireKey[4:] + "\n"),
		"rg colours":            text("\x1b[0m\x1b[35mconfig\x1b[0m:\x1b[0m\x1b[32m7\x1b[0m:token: \x1b[0m\x1b[1m\x1b[31mghp_\x1b[0m" + wireGH[4:]),
		"OSC title inside":      text(wireGH[:10] + "\x1b]0;title\x07" + wireGH[10:]),
		"NUL inside":            text("key " + wireKey[:4] + "\x00" + wireKey[4:]),
		"DEL inside":            text("key " + wireKey[:9] + "\x7f" + wireKey[9:]),
		"escape and separator":  text("key " + wireKey[:4] + "\x1b(B\x1f" + wireKey[4:]),
		"in structured content": {Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: map[string]any{"out": wireKey[:6] + "\x1b[1m\x1b[22m" + wireKey[6:]}},
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rtReceived(t, name, got)
	}
}

// Near misses: coloured output and whitespace controls without a secret
// pass unchanged, and so do escapes next to a secret-free word.
func TestRedTeam22_ControlsNearMisses(t *testing.T) {
	texts := []string{
		"\x1b[0m\x1b[35mmain.go\x1b[0m:\x1b[32m12\x1b[0m:\tfmt.Println(\"AKIA\")\r\n",
		"col1\tcol2\vcol3\fcol4\r\nAKIA" + "\x1b[1m" + "EXAMPLE",
		"\x00\x01binary\x7f header " + wireKey[:12],
	}
	cases := map[string]*mcp.CallToolResult{}
	for i, s := range texts {
		cases[string(rune('a'+i))] = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	_, cs := connectAt(t, rtServer(t, cases), "agent", nil, "")
	for name, want := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g, w := got.Content[0].(*mcp.TextContent).Text, want.Content[0].(*mcp.TextContent).Text; g != w || strings.Contains(g, "REDACTED") {
			t.Errorf("%s: %q became %q", name, w, g)
		}
	}
}
