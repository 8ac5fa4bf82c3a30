package dlp_test

import (
	"fmt"
	"html"
	"strings"
	"testing"
)

// FuzzRedTeamRTC_References: an AWS key whose characters are written, as
// the mask picks, as character references (decimal, hex, with leading
// zeros, escaped again) never survives Redact as a browser reads the
// output (html.UnescapeString), whatever text surrounds it; and Redact
// never panics on reference-heavy text.
func FuzzRedTeamRTC_References(f *testing.F) {
	f.Add("&#34;&amp;", "&#x22;", uint64(0x5), uint8(1))
	f.Add("{&quot;a", "&lt;&#0;", uint64(0xfffff), uint8(3))
	f.Add("\u200b&", "&shy", uint64(1<<19), uint8(2))
	f.Fuzz(func(t *testing.T, prefix, suffix string, mask uint64, style uint8) {
		s := builtinScanner(t, nil)
		const key = "AKIAZ7Q3MV2KXH4PLW6N"
		var b strings.Builder
		for i := range len(key) {
			c := key[i]
			if mask>>i&1 == 0 {
				b.WriteByte(c)
				continue
			}
			switch (int(style) + i) % 5 {
			case 0:
				fmt.Fprintf(&b, "&#%d;", c)
			case 1:
				fmt.Fprintf(&b, "&#X%X;", c)
			case 2:
				fmt.Fprintf(&b, "&#0000000%d;", c)
			case 3:
				fmt.Fprintf(&b, "&amp;#%d;", c)
			default:
				fmt.Fprintf(&b, "%c&shy;", c)
			}
		}
		doc := prefix + " " + b.String() + " " + suffix
		out, _ := s.Redact(doc)
		if mask>>20 != 0 || strings.Contains(prefix+suffix, key) {
			return // only the planted key is checked; the text around may hold others
		}
		if read := html.UnescapeString(html.UnescapeString(out)); strings.Contains(read, key) {
			t.Fatalf("key survived\ndoc: %q\nout: %q", doc, out)
		}
	})
}
