package dlp

import (
	"strings"
	"testing"
)

// benchScan times the built-in pack's automaton alone over text, with a hit
// callback that only counts.
func benchScan(b *testing.B, text string) {
	s, err := New(Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	hits := 0
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s.ac.scan(text, func(int32, int) { hits++ })
	}
	if hits < 0 {
		b.Fatal("unreachable")
	}
}

func BenchmarkAutomatonScan1KiB(b *testing.B) {
	benchScan(b, strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 19)[:1024])
}

func BenchmarkAutomatonScan64B(b *testing.B) {
	benchScan(b, `{"url":"https://github.com/gatehouse-dev/gatehouse"}`)
}

func BenchmarkAutomatonScan16KiB(b *testing.B) {
	benchScan(b, strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 300)[:16<<10])
}
