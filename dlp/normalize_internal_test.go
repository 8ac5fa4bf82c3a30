package dlp

import (
	"strings"
	"testing"
)

// firstNonASCII finds the first byte above 0x7f wherever it is relative to
// its 16-byte blocks, and only that one.
func TestFirstNonASCII(t *testing.T) {
	for n := 0; n <= 70; n++ {
		base := strings.Repeat("a\x7f", n)[:n]
		if got := firstNonASCII(base); got != -1 {
			t.Fatalf("len %d, all ASCII: got %d", n, got)
		}
		for p := 0; p < n; p++ {
			for _, c := range []byte{0x80, 0xc3, 0xff} {
				b := []byte(base)
				b[p] = c
				if p+3 < n {
					b[p+3] = 0xff // a later one is not the first
				}
				if got := firstNonASCII(string(b)); got != p {
					t.Fatalf("len %d, byte %#x at %d: got %d", n, c, p, got)
				}
			}
		}
	}
}
