package mcpredact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// BenchmarkResultStructured: a clean tool result with structured content
// (about 1 KiB of JSON) and _meta, the path that walks the whole result.
func BenchmarkResultStructured(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]any, 12)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": fmt.Sprintf("service-%d", i), "status": "running", "region": "eu-west-1"}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "12 services"}},
		StructuredContent: map[string]any{"services": rows}, Meta: mcp.Meta{"page": 1}}
	b.ReportAllocs()
	for b.Loop() {
		if _, f, err := mcpredact.Result(s, res, nil); err != nil || len(f) != 0 {
			b.Fatal(err, f)
		}
	}
}

// BenchmarkResultJSONText: a clean tool result whose one text is about 1
// KiB of JSON, walked as a tree (as a typed go-sdk tool's text copy).
func BenchmarkResultJSONText(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	rows := make([]any, 12)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "name": fmt.Sprintf("service-%d", i), "status": "running", "region": "eu-west-1"}
	}
	raw, _ := json.Marshal(map[string]any{"services": rows})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, f, err := mcpredact.Result(s, res, nil); err != nil || len(f) != 0 {
			b.Fatal(err, f)
		}
	}
}

// BenchmarkResultCodeText: a clean tool result whose one text is about 1
// KiB of code that mentions keys and tokens on many lines (a header line
// is looked for, jsonText and textTable).
func BenchmarkResultCodeText(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	line := "\tif key, ok := m[tokenName]; ok && len(key) > 0 { return key, nil }\n"
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(line, 1024/len(line))}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, f, err := mcpredact.Result(s, res, nil); err != nil || len(f) != 0 {
			b.Fatal(err, f)
		}
	}
}

// BenchmarkResultOpenBrackets: a text of 200,000 lines that each open a
// JSON array never closed, after a member that sends it down the slow
// path. A decoder started on every line read to the end each time (24 s
// for 400 KB before the read budget of jsonLines; now milliseconds).
func BenchmarkResultOpenBrackets(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	text := `{"token": 1}` + "\n" + strings.Repeat("[\n", 200000)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := mcpredact.Result(s, res, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResultHeaderLines: 50,000 lines that each read as a header
// naming a password column; each line is read once, not as the header of
// all the lines after it.
func BenchmarkResultHeaderLines(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("user,password\n", 50000)}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := mcpredact.Result(s, res, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResultYAMLText: a clean tool result whose one text is about 1
// KiB of a Kubernetes manifest with credential-named env entries read from
// a Secret (valueFrom): the text is parsed as YAML and walked (yamlText).
func BenchmarkResultYAMLText(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var m strings.Builder
	m.WriteString("apiVersion: v1\nkind: Pod\nmetadata:\n  name: app\nspec:\n  containers:\n  - name: app\n    image: app:1.2.3\n    env:\n")
	for i := 0; m.Len() < 1000; i++ {
		fmt.Fprintf(&m, "    - name: DB_PASSWORD_%d\n      valueFrom:\n        secretKeyRef: {name: db, key: password}\n", i)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: m.String()}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, f, err := mcpredact.Result(s, res, nil); err != nil || len(f) != 0 {
			b.Fatal(err, f)
		}
	}
}

// BenchmarkResultProse: a clean tool result whose one text is 1 KiB of
// prose (the root BenchmarkMiddleware/audit-file's result), the fast path
// that scans the text once and sends the result as it is. Words that
// start as a credential's word does ("the" as "heslo", "jumps" as "psk")
// are where the look for a credential's name compares.
func BenchmarkResultProse(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 19)[:1024]
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, f, err := mcpredact.Result(s, res, nil); err != nil || len(f) != 0 {
			b.Fatal(err, f)
		}
	}
}

// BenchmarkResultUnclosedDocs: texts of openings of JSON documents that
// never close (red team rtd): a MiB of {"a":, and 20,000 log lines whose
// documents need the repair (a Windows path) and are cut at the line's
// end. Each opening costs the bytes up to where it stops being JSON.
func BenchmarkResultUnclosedDocs(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	benchTexts(b, s, map[string]string{
		"openings":       strings.Repeat(`{"a":`, 1<<20/5),
		"broken-strings": strings.Repeat(`{"a": "\q`, 30000) + "\n",
		"repair-log":     strings.Repeat("2026-11-24 INFO {\"path\": \"C:\\Users\\svc\", \"token_type\": \"Bearer\", \"items\": [1, 2\n", 20000),
	})
}

// BenchmarkResultXMLText: about 4 KiB of an XML configuration (a
// web.config's appSettings and connection strings) that names passwords
// and holds none, the XML readings' path: elements with attributes and
// CDATA, name and value pairs.
func BenchmarkResultXMLText(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var m strings.Builder
	m.WriteString("<?xml version=\"1.0\"?>\n<configuration>\n  <appSettings>\n")
	for i := 0; m.Len() < 4000; i++ {
		fmt.Fprintf(&m, "    <add key=\"PasswordMinLength%d\" value=\"12\" />\n    <add key=\"Title%d\" value=\"the quick brown fox\" />\n", i, i)
		fmt.Fprintf(&m, "    <setting name=\"Theme%d\" serializeAs=\"String\"><value>dark</value></setting>\n    <password_hint><![CDATA[ask the admin]]></password_hint>\n", i)
	}
	m.WriteString("  </appSettings>\n</configuration>\n")
	benchTexts(b, s, map[string]string{
		"config": m.String(),
		// 1 MiB of tags that open and never end, as a hostile text.
		"unended-tags":   strings.Repeat(`<password a="x" b = 'y' `+strings.Repeat("c", 200), 1<<20/230),
		"unended-values": strings.Repeat(`<pw v="`, 1<<20/7),
		// Red team ruf: comments and TOML multi-line strings never ended.
		"unended-comments":  strings.Repeat("<password>x<!--", 1<<20/15),
		"unended-multiline": strings.Repeat("pw = \"\"\"\n", 1<<20/9),
		"unended-inline":    strings.Repeat(`db = { pw = "x", a = "`, 1<<20/22),
		"open-arrays":       strings.Repeat("pw = [\n", 1<<20/8),
		"unquoted-attrs":    strings.Repeat("<a b=c d=e ", 1<<20/11),
		// 256 KiB of credential elements: each value was compared with
		// all the values kept before it.
		"many-values": strings.Repeat("<pw>x</pw>", 1<<18/10),
		// Red team ruh: 256 KiB of credential-named values five bytes
		// apart, as unquoted attributes, a connection string's members,
		// declarations and TOML inline tables' members.
		"many-unquoted":   "<a" + strings.Repeat(" pw=x", 1<<18/5) + ">",
		"many-conn-pairs": `<a b="` + strings.Repeat("pw=x;", 1<<18/5) + `"/>`,
		"many-inline":     "t = {" + strings.Repeat(" pw='x',", 1<<18/8) + "}\n",
		"many-set-lines":  strings.Repeat("set pw=x\n", 1<<18/9),
		// A line of calls' arguments whose quotes never close, and
		// 1 MiB of keyword arguments.
		"unclosed-call-args": "f(" + strings.Repeat(`, "pw", '`, 1<<20/9) + "\n",
		// Heredocs never ended, each looked for in the next 4 KiB.
		"unended-heredocs": strings.Repeat("pw = <<EOT\n", 1<<20/11),
		"call-args":        strings.Repeat(`f(a, pw="x", b=2)`+"\n", 1<<20/18),
		// Name elements each followed by a long run of siblings and
		// a value element.
		// Red team rva: values that hold a < (read as markup too) and
		// whose quote closes only at the end.
		"unended-inline-multiline": strings.Repeat("t = { pw = \"\"\"\n", 1<<20/16),
		"lt-in-values":             strings.Repeat(`<a b="<`, 1<<20/7) + `"`,
		"lt-in-pw":                 strings.Repeat(`<a pw='x <b pw='`, 1<<20/16) + `'`,
		"name-siblings":            strings.Repeat("<p><name>pw</name>"+strings.Repeat("<d>x</d>", 50)+"<value>x</value></p>", 1<<18/440),
	})
}

// BenchmarkResultDenseValues: 1 MiB texts packed with credential-named
// values, each of a reading of assign.go (red team rva): each value read
// under its name costs the scanner's rules a match, and a text of them
// took seconds. Past maxAssignValues a text is withheld; "config-1000"
// is a configuration below the cap, read whole.
func BenchmarkResultDenseValues(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	var cfg strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&cfg, "app%d.db.host=db%d.internal\napp%d.db.password=Fake Pa55 word %d\n", i, i, i, i)
	}
	benchTexts(b, s, map[string]string{
		"lines":       strings.Repeat("password = \"Fake Pa55 word\"\n", 1<<20/28),
		"set-lines":   strings.Repeat("set pw=x\n", 1<<20/9),
		"elements":    strings.Repeat("<pw>x</pw>", 1<<20/10),
		"call-args":   strings.Repeat(`f(a, pw="x", b=2)`+"\n", 1<<20/18),
		"conn-pairs":  `<a b="` + strings.Repeat("pw=x;", 1<<20/5) + `"/>`,
		"inline":      "t = {" + strings.Repeat(" pw='x',", 1<<20/8) + "}\n",
		"escaped":     strings.Repeat(`<a b="&lt;pw&gt;x&lt;/pw&gt;"/>`, 1<<20/31),
		"escaped-lt":  strings.Repeat(`<a b="&lt;&lt;&lt;&lt;"/>`, 1<<20/25),
		"config-1000": cfg.String(),
	})
}

// benchTexts runs a sub-benchmark of mcpredact.Result per text, each the
// one text of a tool result.
func benchTexts(b *testing.B, s *dlp.Scanner, texts map[string]string) {
	for name, text := range texts {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := mcpredact.Result(s, res, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResultQuotedPairs: lines of quoted pairs read wherever they
// are on a line (red team rve): one line of 120 KiB whose quotes are
// escaped and never closed (each = looked for the closing quote to the
// line's end before the memo), and 8,000 lines of a shell's prefix.
func BenchmarkResultQuotedPairs(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	benchTexts(b, s, map[string]string{
		"unclosed":     "x=1 " + strings.Repeat(`\"pw=;`, 20000),
		"prefix-lines": strings.Repeat("DB_PASSWORD=\"x\" ./run.sh --flag\n", 8000),
	})
}

// BenchmarkResultPercentRuns: 64 KiB of runs that each hold a %XX (red
// team rve: every run between white space with one is read decoded, not
// only a URL's), as URLs ("url") and as bare words ("words"), and a text
// with one encoded URL among prose ("prose-url").
func BenchmarkResultPercentRuns(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	benchTexts(b, s, map[string]string{
		"url":       strings.Repeat("https://x/%41 ", 64<<10/14),
		"words":     strings.Repeat("a%41 ", 64<<10/5),
		"prose-url": strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20) + "see https://x.example/?q=hello%20world&p=2 ok",
	})
}
