package dlp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

var (
	cleanOnce sync.Once
	clean1MiB string // Go source with some prose
	prose1MiB string // prose about credentials, repeated: the prefilter's worst case
)

// cleanText returns 1 MiB of clean Go source from the standard library with
// testdata/fp/prose.txt after each package (no secrets).
func cleanText(b testing.TB) string {
	cleanOnce.Do(func() {
		prose, err := os.ReadFile(filepath.Join("testdata", "fp", "prose.txt"))
		if err != nil {
			panic(err)
		}
		var sb strings.Builder
		for _, dir := range []string{"strings", "bufio", "sort", "text/template", "go/parser", "net/url",
			"encoding/json", "regexp", "go/ast", "go/printer", "net/http"} {
			files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				raw, err := os.ReadFile(f)
				if err != nil {
					panic(err)
				}
				sb.Write(raw)
			}
			sb.Write(prose)
			if sb.Len() >= 1<<20 {
				break
			}
		}
		if sb.Len() < 1<<20 {
			panic("not enough Go source in GOROOT")
		}
		clean1MiB = sb.String()[:1<<20]
		prose1MiB = strings.Repeat(string(prose), (1<<20)/len(prose)+1)[:1<<20]
	})
	return clean1MiB
}

func credentialProse(b testing.TB) string {
	cleanText(b)
	return prose1MiB
}

// policyPatterns are three AIP-style policy patterns without keywords.
var policyPatterns = []dlp.Pattern{
	{Name: "AWS Key", Regex: `(AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}`},
	{Name: "GitHub Token", Regex: `ghp_[a-zA-Z0-9]{36}`},
	{Name: "Private Key", Regex: `-----BEGIN (RSA |EC |DSA |OPENSSH )?PRIVATE KEY-----`},
}

func benchRedact(b *testing.B, s *dlp.Scanner, text string) {
	if _, f := s.Redact(text); f != nil {
		b.Fatalf("clean text has findings: %+v", f)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Redact(text)
	}
}

func BenchmarkBuiltinClean1MiB(b *testing.B) {
	benchRedact(b, builtinScanner(b, nil), cleanText(b))
}

func BenchmarkBuiltinClean1MiBDetectEncoding(b *testing.B) {
	benchRedact(b, builtinScanner(b, &dlp.Options{DetectEncoding: true}), cleanText(b))
}

func BenchmarkBuiltinCredentialProse1MiB(b *testing.B) {
	benchRedact(b, builtinScanner(b, nil), credentialProse(b))
}

func BenchmarkBuiltinCredentialProse1MiBDetectEncoding(b *testing.B) {
	benchRedact(b, builtinScanner(b, &dlp.Options{DetectEncoding: true}), credentialProse(b))
}

func BenchmarkReferenceBuiltinCredentialProse1MiB(b *testing.B) {
	ref, text := newRef(dlp.Builtin(), nil), credentialProse(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		ref.redact(text)
	}
}

func BenchmarkBuiltinClean1MiBParallel(b *testing.B) {
	s, text := builtinScanner(b, nil), cleanText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.Redact(text)
		}
	})
}

func BenchmarkReferenceBuiltinClean1MiB(b *testing.B) {
	ref, text := newRef(dlp.Builtin(), nil), cleanText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		ref.redact(text)
	}
}

func BenchmarkPolicy3Patterns1KiB(b *testing.B) {
	benchRedact(b, mustNew(b, policyPatterns, nil), cleanText(b)[:1024])
}

func BenchmarkReferencePolicy3Patterns1KiB(b *testing.B) {
	ref, text := newRef(policyPatterns, nil), cleanText(b)[:1024]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		ref.redact(text)
	}
}

func BenchmarkBuiltinWithSecrets1MiB(b *testing.B) {
	s, text := builtinScanner(b, nil), cleanText(b)
	var sb strings.Builder
	var positives []string
	for _, r := range dlp.BuiltinRules() {
		positives = append(positives, r.Positives...)
	}
	for i := 0; i < len(text); i += 4096 {
		sb.WriteString(text[i:min(len(text), i+4096)])
		sb.WriteString("\n" + positives[(i/4096)%len(positives)] + "\n")
	}
	in := sb.String()
	s.Redact(in) // one-off: compiles the anchored forms of the rules that fire
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		s.Redact(in)
	}
}

// twentySecrets plants 20 secrets (the first positive sample of 20 rules
// spread over the pack) at even distances in the clean 1 MiB: the
// measurement of issue 15 (20 planted secrets in 1 MiB of Go source).
func twentySecrets(b testing.TB) (string, int) {
	text := cleanText(b)
	rules := dlp.BuiltinRules()
	var sb strings.Builder
	step := len(text) / 20
	for i := 0; i < 20; i++ {
		sb.WriteString(text[i*step : (i+1)*step])
		sb.WriteString("\n" + rules[i*len(rules)/20].Positives[0] + "\n")
	}
	return sb.String(), 20
}

func BenchmarkBuiltin20Secrets1MiB(b *testing.B) {
	s := builtinScanner(b, nil)
	in, want := twentySecrets(b)
	if _, f := s.Redact(in); len(f) == 0 {
		b.Fatal("no findings")
	} else if n := countAll(f); n < want {
		b.Fatalf("found %d of %d planted secrets", n, want)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		s.Redact(in)
	}
}

func countAll(fs []dlp.Finding) int {
	n := 0
	for _, f := range fs {
		n += f.Count
	}
	return n
}

// BenchmarkNew1000Patterns builds a scanner from 1,000 custom patterns (a
// one-off cost at startup).
func BenchmarkNew1000Patterns(b *testing.B) {
	pats := make([]dlp.Pattern, 1000)
	for i := range pats {
		pats[i] = dlp.Pattern{Name: fmt.Sprintf("custom-%d", i), Regex: fmt.Sprintf(`\bcst%03d_[A-Za-z0-9]{32}\b`, i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dlp.New(pats, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRedactJSON(b *testing.B) {
	s := builtinScanner(b, nil)
	doc := map[string]any{"content": []any{map[string]any{"type": "text", "text": cleanText(b)[:64<<10] + " " + awsKey}}}
	raw, _ := json.Marshal(doc)
	s.RedactJSON(raw) // one-off: compiles the anchored forms of the rules that fire
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.RedactJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriter1MiB(b *testing.B) {
	s, text := builtinScanner(b, &dlp.Options{ChunkSize: 64 << 10}), []byte(cleanText(b))
	s.Redact(string(text)) // one-off: compiles the anchored forms of the rules that fire
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		w := s.NewWriter(discard{})
		for i := 0; i < len(text); i += 4096 {
			w.Write(text[i:min(len(text), i+4096)])
		}
		w.Close()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// result1KiB is the root package's 1 KiB tool result (its BenchmarkMiddleware)
// and args52B the arguments of that call, which the audit path scans.
var (
	result1KiB = strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 19)[:1024]
	args52B    = `{"url":"https://github.com/gatehouse-dev/gatehouse"}`
)

func BenchmarkBuiltinResult1KiB(b *testing.B) { benchRedact(b, builtinScanner(b, nil), result1KiB) }

func BenchmarkBuiltinArgs52B(b *testing.B) { benchRedact(b, builtinScanner(b, nil), args52B) }

func BenchmarkBuiltinClean1KiB(b *testing.B) {
	benchRedact(b, builtinScanner(b, nil), cleanText(b)[:1024])
}

func BenchmarkBuiltinClean16KiB(b *testing.B) {
	benchRedact(b, builtinScanner(b, nil), cleanText(b)[:16<<10])
}

// BenchmarkNew: building a scanner of the built-in set, as every Guard
// does. "builtin" takes the rules and automaton compiled before
// (compilecache.go); "renamed" is the same set with every rule renamed, so
// nothing is shared and every regex is compiled, as before the cache (and
// as for a policy's own patterns).
func BenchmarkNew(b *testing.B) {
	builtin := dlp.Builtin()
	renamed := dlp.Builtin()
	for i := range renamed {
		renamed[i].Name += "-own"
	}
	for _, c := range []struct {
		name string
		pats []dlp.Pattern
	}{{"builtin", builtin}, {"renamed", renamed}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := dlp.New(c.pats, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
