package dlp

import (
	"strings"
	"testing"
)

// firstChange stops at the first hidden byte or character reference
// wherever it is relative to the 8- and 16-byte words, after any number of
// '&' that start none (code's &&, &x), as the byte-by-byte definition
// does (red team rty).
func TestRedTeamRTY_FirstChange(t *testing.T) {
	naive := func(s string) int {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 0x80 || hiddenControl(c) {
				return i
			}
			if r, w := entityAt(s[i:]); s[i] == '&' && w > 0 && r != '&' {
				return i
			}
		}
		return -1
	}
	fills := []string{"ab c&& x &v) &;&#;&# &x; q", "plain prose, no sign at all", "&&&&&&&&&&&&&&&&"}
	marks := []string{"&quot;", "&#34;", "&#x22", "&amp;", "&Tab;", "\x00", "\u200b", "é", "&&quot;", "&#", "&bogus;"}
	for _, fill := range fills {
		for n := 0; n <= 40; n++ {
			base := strings.Repeat(fill, 3)[:n]
			if got, want := firstChange(base), naive(base); got != want {
				t.Fatalf("%q: got %d, want %d", base, got, want)
			}
			for p := 0; p <= n; p++ {
				for _, m := range marks {
					s := base[:p] + m + base[p:]
					if got, want := firstChange(s), naive(s); got != want {
						t.Fatalf("%q: got %d, want %d", s, got, want)
					}
					if got, want := nextRef(s, 0), naiveRef(s); got != want {
						t.Fatalf("nextRef %q: got %d, want %d", s, got, want)
					}
				}
			}
		}
	}
}

func naiveRef(s string) int {
	for i := 0; i < len(s); i++ {
		if r, w := entityAt(s[i:]); s[i] == '&' && w > 0 && r != '&' {
			return i
		}
	}
	return -1
}

func TestRedTeamRTY_EntityAt(t *testing.T) {
	for in, want := range map[string]struct {
		r rune
		w int
	}{
		"&quot;x": {'"', 6}, "&#34;x": {'"', 5}, "&#x22;": {'"', 6}, "&#X22": {'"', 5}, "&#34x": {'"', 4},
		"&amp;quot;": {'"', 10}, "&amp;amp;#61;": {'=', 13}, "&amp;x": {'&', 5}, "&equals;": {'=', 8},
		"&#0;": {0xfffd, 4}, "&#xd800;": {0xfffd, 8}, "&#x110000;": {0xfffd, 10}, "&#8203;": {0x200b, 7},
		"&": {0, 0}, "&&": {0, 0}, "&x": {0, 0}, "&copy;": {0, 0}, "&#;": {0, 0}, "&#x;": {0, 0},
		"&QUOT;": {'"', 6}, "&Quot;": {0, 0},
	} {
		if r, w := entityAt(in); r != want.r || w != want.w {
			t.Errorf("entityAt(%q) = %q, %d; want %q, %d", in, r, w, want.r, want.w)
		}
	}
}
