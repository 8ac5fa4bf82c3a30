package normalize_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// TestDesign3_NameRemovesInvisibleAndTrims: NFKC, folding, every invisible
// rune removed, trimmed after removal (DESIGN §3 item 3, AIP §4.1).
func TestDesign3_NameRemovesInvisibleAndTrims(t *testing.T) {
	cases := map[string]string{
		"read_file":             "read_file",
		"READ_FILE":             "read_file",
		"ｒｅａｄ＿ｆｉｌｅ":             "read_file",
		"ﬁle_read":              "file_read",
		"ﬂow":                   "flow",
		"tool²":                 "tool2",
		"delete\u200bfile":      "deletefile",
		" \u200b read_file":     "read_file",
		"read_file \u200b ":     "read_file",
		"\ufeffsafe_tool":       "safe_tool",
		"\u2003read_file\u2003": "read_file",
		"\u00a0read_file\u3000": "read_file",
		"\u202aread\u202b_\u202cfile\u202d\u202e": "read_file",
		"\u2066read_file\u2067\u2068\u2069":       "read_file",
		"read\u2060_file\u200c\u200d":             "read_file",
		"read_file\U000E0001\U000E0041\U000E007F": "read_file",
		"read\u00ad_file":                         "read_file",
		"read\ufe0f_file\ufe00":                   "read_file",
		"read_\u034ffile":                         "read_file",
		"\u3164read_file\u115f\uffa0":             "read_file",
		"read\x00_\x1ffile\x7f":                   "read_file",
		"read\u0085_file\u2028\u2029":             "read_file",
		"read\ue000_file":                         "read_file", // private use
		"read\U000E0100_file":                     "read_file", // variation selector supplement
		"STRASSE":                                 "strasse",
		"straße":                                  "strasse",
		"ǅ":                                       "dž", // NFKC splits the digraph
		"Ǆ":                                       "dž",
		"\xffread_file\xfe":                       "read_file", // invalid UTF-8
		"":                                        "",
		"   ":                                     "",
		"\u200b":                                  "",
		"read file":                               "read file",
		"tools/call":                              "tools/call",
		"ｔｏｏｌｓ/ｃａｌｌ":                              "tools/call",
		"𝐫𝐞𝐚𝐝":                                    "read",
		"ⓡⓔⓐⓓ":                                    "read",
		"rеad":                                    "rеad", // Cyrillic е stays: NFKC does not map look-alikes
	}
	for in, want := range cases {
		if got := normalize.Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNameOutputHasNoInvisibleRunes(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= 0x2FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		b.Reset()
		b.WriteString("a")
		b.WriteRune(r)
		b.WriteString("b")
		out := normalize.Name(b.String())
		for _, o := range out {
			if normalize.Invisible(o) {
				t.Fatalf("Name(a U+%04X b) = %q keeps invisible U+%04X", r, out, o)
			}
		}
		if normalize.Name(out) != out {
			t.Fatalf("Name not idempotent on a U+%04X b: %q -> %q", r, out, normalize.Name(out))
		}
	}
}

func TestInvisible(t *testing.T) {
	for _, r := range []rune{0, '\t', '\n', 0x7f, 0x85, 0xad, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202e, 0x2060, 0x2066, 0x2069, 0xfeff, 0xe0041, 0xfe0f, 0x034f, 0x3164, 0xe000, 0x2028, utf8.RuneError} {
		if !normalize.Invisible(r) {
			t.Errorf("Invisible(U+%04X) = false", r)
		}
	}
	for _, r := range []rune{'a', ' ', '_', '/', 'é', 'е', '中', '😀'} {
		if normalize.Invisible(r) {
			t.Errorf("Invisible(%q) = true", r)
		}
	}
}

func TestNameASCIIFastPathDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"read_file", "tools/call", "a b", "notifications/resources/list_changed"} {
		if n := testing.AllocsPerRun(100, func() { _ = normalize.Name(s) }); n != 0 {
			t.Errorf("Name(%q): %v allocs, want 0", s, n)
		}
	}
}

func FuzzName(f *testing.F) {
	for _, s := range []string{"read_file", "ＲＥＡＤ", "ﬁ", "ΐ", "İ", "ß", " \u200b x ", "\u0345", "ǅ", "\xff", "\u1e9e", "ﬀ\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := normalize.Name(s)
		if normalize.Name(n) != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, n, normalize.Name(n))
		}
		if !utf8.ValidString(n) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, n)
		}
		if strings.TrimFunc(n, unicode.IsSpace) != n {
			t.Fatalf("untrimmed: %q", n)
		}
		for _, r := range n {
			if normalize.Invisible(r) {
				t.Fatalf("invisible U+%04X kept in %q", r, n)
			}
		}
	})
}
