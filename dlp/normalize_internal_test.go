package dlp

import (
	"testing"
)

// firstHidden finds the first byte above 0x7f or hidden control character
// wherever it is relative to its 8-byte words, and only that one: every
// byte value is tried at every position against the byte-by-byte
// definition, over a background of every byte that must not stop it.
func TestFirstHidden(t *testing.T) {
	visible := []byte("a\t\n\v\f\r ~!0Z\x7e")
	for n := 0; n <= 40; n++ {
		base := make([]byte, n)
		for i := range base {
			base[i] = visible[i%len(visible)]
		}
		if got := firstHidden(string(base)); got != -1 {
			t.Fatalf("len %d, all visible: got %d", n, got)
		}
		for p := 0; p < n; p++ {
			for c := 0; c < 256; c++ {
				b := append([]byte(nil), base...)
				b[p] = byte(c)
				if p+3 < n {
					b[p+3] = 0x00 // a later one is not the first
				}
				want := -1
				if c >= 0x80 || hiddenControl(byte(c)) {
					want = p
				} else if p+3 < n {
					want = p + 3
				}
				if got := firstHidden(string(b)); got != want {
					t.Fatalf("len %d, byte %#x at %d: got %d, want %d", n, c, p, got, want)
				}
			}
		}
	}
}
