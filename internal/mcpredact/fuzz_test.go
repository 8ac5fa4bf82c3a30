package mcpredact_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// FuzzTextResult: a text result (JSON documents, tables, anything) never
// makes Result fail or panic, and an AWS key planted at any place of it
// never reaches the client whole.
//
// The fuzzer reports 0 execs/s for up to a minute now and then (red team
// rts): that is the engine minimizing a new interesting input, not a slow
// input. Go minimizes every input that adds coverage for up to
// -fuzzminimizetime (60 s by default) and counts those runs only at the
// end; removing each subset of bytes of an input of n bytes is O(n²) runs,
// so a 1 KB input spends the whole minute. Every input of two runs' caches
// (457, up to 997 bytes) took under 2 ms through Result, and with
// -fuzzminimizetime 2s the rate stayed above 1,700/s for 60 s. To fuzz
// without the pauses: -fuzzminimizetime 0 (or a few seconds).
func FuzzTextResult(f *testing.F) {
	for _, seed := range []string{
		`{"Passwort": "x", "a": [1, {"b": "c"}]}`, "user,password\nadmin,x\n", "```json\n{\"k\": \"v\"}\n```",
		"[\n[\n{\"token\": 1}", "| a | pw |\n|---|---|\n| b | c |", "\ufeff{\"a\":\"{\\\"b\\\": 1}\"}",
		// Red team ruf: XML and TOML shapes xmlValues and tomlValues read.
		`<x:p x:name="pw" Value='a b'/><pw>c<!-- d --><?e?></pw ><s name="pw"><value>f</value></s>`,
		`<!ENTITY pw "a b"><input type=password value=a/><property><name>pw</name><value><![CDATA[x]]></value></property>`,
		"db = { a = 1, b = { pw = \"x y\" }, c = [\"d\"] }\npw = \"\"\"\na b\n\"\"\"\npws = [\n'c d',\n]\ndb . \"pw\" = 'e'",
		// Red team rva: escaped markup, directives, declarations, options
		// in a variable, a value element before its name, < in a value.
		`<a v="&lt;pw&gt;a b&lt;/pw&gt;" w='&amp;lt;pw&amp;gt;c&amp;lt;/pw&amp;gt;' x="d < e"/><e><value>f g</value><key>pw</key></e>`,
		"ENV A=1 PW=\"a b\"\nENV PW c d\nset $pw \"e f\";\nEnvironment=\"PW=g h\"\nJAVA_OPTS=\"-X -Dpw=i j -Y\"\nt = { pw = '''k\nl''' }\n",
	} {
		f.Add(seed, uint(len(seed)/2))
	}
	s := scanner(f)
	f.Fuzz(func(t *testing.T, text string, at uint) {
		at %= uint(len(text) + 1)
		for at > 0 && at < uint(len(text)) && text[at]&0xC0 == 0x80 {
			at-- // plant on a rune boundary
		}
		planted := text[:at] + " " + key + " " + text[at:]
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: planted}}}
		out, _, err := mcpredact.Result(s, res, nil)
		if err != nil {
			t.Fatalf("Result: %v", err)
		}
		if got := out.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text; strings.Contains(got, key) {
			t.Fatalf("the planted key survived in %q", got)
		}
	})
}
