package dlp

import "testing"

func TestFirstBytes(t *testing.T) {
	f := newFirstBytes(`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://x`)
	if f == nil || !f.wordStart {
		t.Fatalf("url-like rule: %+v", f)
	}
	text := `{"url":"https://x"}`
	var admitted []int
	for p := range len(text) {
		if f.admits(text, p) {
			admitted = append(admitted, p)
		}
	}
	if len(admitted) != 3 || text[admitted[0]] != 'u' || text[admitted[1]] != 'h' || text[admitted[2]] != 'x' {
		t.Fatalf("admitted starts %v", admitted)
	}
	if g := newFirstBytes(`(?i)key`); g == nil || !g.ok['k'] || !g.ok['K'] || g.ok['e'] {
		t.Fatalf("case-folded literal: %+v", g)
	}
	for _, src := range []string{`ab|cd`, `.x`, `x*y`, `^x`, `(?:x?)y`} {
		if newFirstBytes(src) != nil {
			t.Errorf("%s: a start set where none can be bounded this way", src)
		}
	}
	if g := newFirstBytes(`[é]x`); g == nil || !g.ok[0xC3] {
		t.Fatalf("non-ASCII first rune: lead bytes must be admitted")
	}
}
