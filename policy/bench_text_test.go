package policy_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Clean texts for the protected-path benchmarks (issue 14 item 7): English
// prose and Go source (this package's own compile.go), repeated to size.
const benchProse = `The deployment finished early this morning, and the team reviewed the
results over coffee. Latency stayed flat across every region, while the
error rate dropped after the retry budget was tuned. Next week we plan to
move the remaining services to the new cluster, write down what we learned,
and retire the old dashboards that nobody reads any more. Questions about
the rollout can go to the platform channel; answers usually come quickly.
`

func benchSource(b *testing.B) string {
	src, err := os.ReadFile("compile.go")
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

func sized(s string, n int) string {
	return strings.Repeat(s, n/len(s)+1)[:n]
}

// BenchmarkProtectedText evaluates a write_file call whose content is
// clean prose or Go source of 1 KiB, 64 KiB and 1 MiB, under a policy with
// four protected paths (~/.ssh, ~/.aws/credentials, .env, /etc/shadow).
func BenchmarkProtectedText(b *testing.B) {
	p := mustParse(b, benchProtected)
	for _, kind := range []struct {
		name, text string
	}{{"prose", benchProse}, {"source", benchSource(b)}} {
		for _, size := range []struct {
			name string
			n    int
		}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
			text := sized(kind.text, size.n)
			r := policy.Request{Method: "tools/call", Tool: "read_file", Args: map[string]any{"content": text}}
			if d := p.Evaluate(r); d.Outcome != policy.Allow {
				b.Fatalf("%s %s: %s %s", kind.name, size.name, d.Outcome, d.Reason)
			}
			b.Run(kind.name+"/"+size.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					p.Evaluate(r)
				}
			})
		}
	}
}

// BenchmarkProtectedAbsPath evaluates one absolute path argument.
func BenchmarkProtectedAbsPath(b *testing.B) {
	p := mustParse(b, benchProtected)
	r := policy.Request{Method: "tools/call", Tool: "read_file", Args: map[string]any{"path": "/srv/app/internal/server/handler.go"}}
	if d := p.Evaluate(r); d.Outcome != policy.Allow {
		b.Fatal(d.Reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate(r)
	}
}
