package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// toFullwidth writes the ASCII letters and digits of s in their fullwidth
// forms (U+FF01..U+FF5E), which NFKC maps back to ASCII.
func toFullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > 0x20 && r < 0x7f {
			r += 0xfee0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// interleave puts sep after every n-th rune of s.
func interleave(s, sep string, n int) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		b.WriteRune(r)
		if (i+1)%n == 0 && i+1 < len(rs) {
			b.WriteString(sep)
		}
	}
	return b.String()
}

// A secret spelled with invisible runes inside it or in compatibility forms
// is found, and every byte of its original spelling is redacted, the
// invisible runes included; the text around it is kept.
func TestNormalizedSpellings(t *testing.T) {
	s := builtinScanner(t, nil)
	key := "AKIA" + "Z7Q3MV2KXH4PLW6N"
	gh := "ghp_" + strings.Repeat("FAKE0example1TOKEN2x", 2)[:36]
	spellings := map[string]string{
		"zero-width space":   interleave(key, "\u200b", 3),
		"soft hyphen":        interleave(key, "\u00ad", 5),
		"word joiner":        interleave(key, "\u2060", 1),
		"zwnj and zwj":       interleave(interleave(key, "\u200c", 2), "\u200d", 7),
		"bom":                interleave(key, "\ufeff", 4),
		"bidi controls":      interleave(interleave(key, "\u2066", 6), "\u202e", 9),
		"variation selector": interleave(key, "\ufe0f", 3),
		"tag characters":     interleave(key, "\U000e0041", 8),
		"fullwidth":          toFullwidth(key),
		"fullwidth github":   toFullwidth(gh),
		"mixed":              toFullwidth(key[:10]) + "\u200b" + key[10:],
		"math bold digits":   strings.ReplaceAll(key, "7", "\U0001d7d5"),
	}
	for name, sp := range spellings {
		t.Run(name, func(t *testing.T) {
			in := "before " + sp + " after \u00e9t\u00e9"
			out, f := s.Redact(in)
			if len(f) == 0 {
				t.Fatalf("not found: %q", in)
			}
			if strings.Contains(out, sp) || !strings.HasPrefix(out, "before [REDACTED:") || !strings.HasSuffix(out, "] after \u00e9t\u00e9") {
				t.Errorf("redacted to %q", out)
			}
			r := f[0].Ranges[0]
			if in[r.Start:r.End] != sp {
				t.Errorf("range %d..%d is %q, want the whole original spelling", r.Start, r.End, in[r.Start:r.End])
			}
		})
	}
}

// Near misses: non-ASCII text that normalizes to no secret stays as it is,
// and text with invisible runes but no secret is not touched.
func TestNormalizedNearMisses(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, in := range []string{
		"caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u2014 na\u00efve r\u00e9sum\u00e9",
		"\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3002\u30d1\u30b9\u30ef\u30fc\u30c9\u306f\u5225\u306e\u5834\u6240\u3002",
		"soft\u00adhyphen\u200bwords\u2060joined \ufeffbom",
		toFullwidth("AKIA" + "Z7Q3MV2KXH4PLW6"), // one character short
		"AKIA\u200b" + "z7q3mv2kxh4plw6n",       // lower case is not a key id
		"\U0001F600 emoji \u2764\ufe0f with selector",
	} {
		if out, f := s.Redact(in); len(f) != 0 || out != in {
			t.Errorf("%q -> %q (%v)", in, out, names(f))
		}
	}
}

// Policy patterns are matched against the normalized view too.
func TestNormalizedPolicyPattern(t *testing.T) {
	s, err := dlp.New([]dlp.Pattern{{Name: "Internal", Regex: `INT-[0-9]{6}`}}, &dlp.Options{DetectEncoding: true})
	if err != nil {
		t.Fatal(err)
	}
	in := "id " + toFullwidth("INT-123456") + " and INT-\u200b654321"
	out, f := s.Redact(in)
	if count(f, "Internal") != 2 || out != "id [REDACTED:Internal] and [REDACTED:Internal]" {
		t.Errorf("%q -> %q %v", in, out, f)
	}
}

// A secret longer than the normalization window, with an invisible rune
// deep inside, is still redacted whole (the window scan falls back to the
// whole text's view).
func TestNormalizedLongSecret(t *testing.T) {
	s := builtinScanner(t, nil)
	body := strings.Repeat(strings.Repeat("FAKE+example/KEY0notreal1", 3)[:64]+"\n", 100)
	pem := "-----BEGIN RSA " + "PRIVATE KEY-----\n" + body[:3000] + "\u200b" + body[3000:] + "-----END RSA " + "PRIVATE KEY-----"
	in := strings.Repeat("x ", 3000) + pem + " tail"
	out, f := s.Redact(in)
	if count(f, "private-key") != 1 || out != strings.Repeat("x ", 3000)+"[REDACTED:private-key] tail" {
		t.Errorf("findings %v, output ends %q", f, out[max(0, len(out)-80):])
	}
}
