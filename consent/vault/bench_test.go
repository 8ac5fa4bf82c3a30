package vault_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// benchText is ordinary tool output: prose, a config, code, with spaces,
// tabs, colons and line breaks, holding no vault value.
var benchText = strings.Repeat("Deployed 3 services in 4.2s:\n  api: ok (build 1a2b3c4d)\n  web: ok\n"+
	"func main() {\n\tfmt.Println(\"hello, world\")\n}\nkey: value\nlist:\n  - a\n  - b\n", 8)

func benchScrubber() *vault.Scrubber {
	return vault.NewScrubber(map[string]string{
		"deploy_token": "ghp_" + "R4nd0mT0kenValue1234567890abcdefXYZwq",
		"db_password":  "c0rrect-h0rse-battery-staple",
	})
}

// BenchmarkScrubberString is the cost of scrubbing one string of ordinary
// output that holds no vault value (every string of every result pays it
// once a secret was injected).
func BenchmarkScrubberString(b *testing.B) {
	sc := benchScrubber()
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		if sc.String(benchText) != benchText {
			b.Fatal("changed")
		}
	}
}

// BenchmarkScrubberStringShort is the same for a short string without
// layout (a member name, an identifier).
func BenchmarkScrubberStringShort(b *testing.B) {
	sc := benchScrubber()
	b.ReportAllocs()
	for b.Loop() {
		if sc.String("structuredContent") != "structuredContent" {
			b.Fatal("changed")
		}
	}
}

// BenchmarkScrubberStream is the cost of one streamed message of 128
// bytes of ordinary output, read with the 4 KiB kept before it, when a
// long value (a 2 KiB key: the search windows around a message's start
// and end grow with the longest value) and two short ones were injected.
func BenchmarkScrubberStream(b *testing.B) {
	long := strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", 40)[:2048]
	sc := vault.NewScrubber(map[string]string{
		"deploy_token": "ghp_" + "R4nd0mT0kenValue1234567890abcdefXYZwq",
		"db_password":  "c0rrect-h0rse-battery-staple",
		"signing_key":  long,
	})
	text := strings.Repeat(benchText, 8)
	tail, msg := text[:4096], text[4096:4096+128]
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if sc.Stream(tail, msg) != msg {
			b.Fatal("changed")
		}
	}
}
