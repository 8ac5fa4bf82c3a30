package dlp_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// recallContext wraps a sample the way it appears in the wild. enc marks
// the contexts that need Options.DetectEncoding.
type recallContext struct {
	name      string
	enc       bool
	multiline bool // the context carries samples that span lines
	wrap      func(sample string) string
}

var recallContexts = []recallContext{
	{"raw", false, true, func(s string) string { return s }},
	{"json", false, true, func(s string) string {
		raw, _ := json.Marshal(map[string]any{"result": map[string]any{"output": s, "ok": true}})
		return string(raw)
	}},
	{"yaml", false, true, func(s string) string {
		return "step:\n  name: dump\n  output: |\n    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n  done: true\n"
	}},
	{"env", false, false, func(s string) string { return "# loaded\nDEBUG_DUMP=" + s + "\nLOG_LEVEL=info\n" }},
	{"url-query", false, false, func(s string) string {
		return "GET https://app.example.com/callback?state=xyz&debug=" + s + " HTTP/1.1"
	}},
	{"html", false, true, func(s string) string { return "<html><body><pre>" + s + "</pre></body></html>" }},
	{"log", false, false, func(s string) string {
		return "2026-11-23T20:00:00.123Z INFO  request finished id=7f3a9c detail=" + s + " latency=12ms"
	}},
	{"base64", true, true, func(s string) string { return "payload: " + base64.StdEncoding.EncodeToString([]byte(s)) + "\n" }},
	{"hex", true, true, func(s string) string { return "dump " + hex.EncodeToString([]byte(s)) + " end" }},
	{"percent", true, true, func(s string) string { return "next=" + url.QueryEscape(s) + "&x=1" }},
}

// TestRecallCorpus: every positive sample of every built-in rule is found in
// every context (100% recall), and what carried it does not survive.
func TestRecallCorpus(t *testing.T) {
	plain := builtinScanner(t, nil)
	enc := builtinScanner(t, &dlp.Options{DetectEncoding: true})
	total, found := 0, 0
	for _, r := range dlp.BuiltinRules() {
		for i, p := range r.Positives {
			for _, c := range recallContexts {
				if strings.Contains(p, "\n") && !c.multiline {
					continue
				}
				total++
				doc := c.wrap(p)
				s := plain
				if c.enc {
					s = enc
				}
				var out string
				var f []dlp.Finding
				if c.name == "json" {
					o, fs, err := s.RedactJSON([]byte(doc))
					if err != nil {
						t.Fatal(err)
					}
					out, f = string(o), fs
				} else {
					out, f = s.Redact(doc)
				}
				if len(f) == 0 || out == doc || strings.Contains(out, p) {
					t.Errorf("%s positive %d in %s: not found", r.Name, i, c.name)
					continue
				}
				found++
			}
		}
	}
	if found != total || total < 5*len(dlp.BuiltinRules()) {
		t.Errorf("recall %d/%d", found, total)
	}
}
