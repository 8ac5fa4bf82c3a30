package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// rudExhaust are prefixes crafted to make a line reader of a Secret's
// data block read the same lines over and over, past its byte budget, so
// that its rule's regex runs instead, over the whole text.
var rudExhaust = map[string]string{
	"nested-data":     "data:\n" + strings.Repeat(" data:\n", 3000),
	"foreign-data":    "apiVersion: v1\n" + strings.Repeat("W1124 data:\n", 3000) + "x\n",
	"kind-comments":   strings.Repeat("kind: Secret #", 3000) + "\ndata:\n" + strings.Repeat("\n", 3000) + "x\n",
	"stringdata-line": strings.Repeat("stringData: #", 3000) + "\n" + strings.Repeat("\n", 3000) + "x\n",
}

// BenchmarkExhaustedSecret: a prefix that exhausts a reader's budget,
// then a Secret of 1 MiB (kind first and as kubectl prints it): the
// regexes must not run over the Secret at the NFA's few MB/s.
func BenchmarkExhaustedSecret(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for name, pre := range rudExhaust {
		for _, kubectl := range []bool{false, true} {
			text := pre + "---\n" + secretManifest(1<<20, kubectl)
			n := name
			if kubectl {
				n += "-kubectl"
			}
			b.Run(n, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					if out, _ := s.Redact(text); out == text {
						b.Fatal("nothing redacted")
					}
				}
			})
		}
	}
}
