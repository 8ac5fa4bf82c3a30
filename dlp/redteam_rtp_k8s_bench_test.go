package dlp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// secretManifest is a Secret of about n bytes, written kind first (as
// people and helm write it) or as kubectl get -o yaml prints it (data
// first, then kind).
func secretManifest(n int, kubectl bool) string {
	var b strings.Builder
	if !kubectl {
		b.WriteString("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: prod\ntype: Opaque\n")
	} else {
		b.WriteString("apiVersion: v1\n")
	}
	b.WriteString("data:\n")
	for i := 0; b.Len() < n-64; i++ {
		fmt.Fprintf(&b, "  key%03d: %s\n", i, "c2VjcmV0LXZhbHVlLW51bWJlci0wMDAwMDAwMDAwMDA=")
	}
	if kubectl {
		b.WriteString("kind: Secret\nmetadata:\n  name: db\ntype: Opaque\n")
	}
	return b.String()
}

// BenchmarkSecretManifest: the built-in pack over a whole Kubernetes
// Secret manifest, its data block of 4 KiB and 64 KiB.
func BenchmarkSecretManifest(b *testing.B) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{4 << 10, 64 << 10} {
		for _, kubectl := range []bool{false, true} {
			text := secretManifest(n, kubectl)
			name := fmt.Sprintf("%dKiB", n>>10)
			if kubectl {
				name += "-kubectl"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					if out, _ := s.Redact(text); out == text {
						b.Fatal("nothing redacted")
					}
				}
			})
		}
	}
}
