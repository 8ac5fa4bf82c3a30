package dlp

import (
	"strings"
	"unicode/utf8"
)

// HTML character references (red team rty): a tool that fetches a page
// returns its markup, where JSON in an attribute is written
// {&quot;password&quot;:&quot;...&quot;}, an XML dump shows
// &lt;password&gt;...&lt;/password&gt; and a form's query
// password&#61;..., and the reader (a browser, or the model) sees the
// quotes, brackets and signs the rules look for. The normalized view
// decodes a reference as the rune it stands for, like a fullwidth letter,
// so the rules match there and the match is mapped back to the original
// bytes. References escaped again (&amp;quot;, &amp;#34;) are decoded in
// one step: a page that escapes an escaped document is read as its reader
// reads it after both, whichever way the '&' is escaped again (&amp;,
// &AMP;, &#38;, &#x26;). Red team rtc: a reference is read as a browser
// reads it: numbers with any count of leading zeros (&#0000000034;), the
// legacy names a browser reads without their semicolon (&quot, &lt, &gt),
// and the names of the invisible runes the view removes (&shy;, &zwj;,
// &ZeroWidthSpace;, &NoBreak;, &lrm;, ...), which split a key as the runes
// do.

// maxEntity is the longest reference entityAt decodes, &amp; repeats
// included: a longer run of &amp; is taken as & and the rest as text.
const maxEntity = 64

// entityNames are the named references decoded: the ASCII punctuation a
// rule's syntax holds, the space and the letters HTML writes for them.
var entityNames = map[string]rune{
	"quot": '"', "QUOT": '"', "apos": '\'', "lt": '<', "LT": '<', "gt": '>', "GT": '>',
	"amp": '&', "AMP": '&', "equals": '=', "colon": ':', "comma": ',', "semi": ';', "sol": '/',
	"bsol": '\\', "lsqb": '[', "lbrack": '[', "rsqb": ']', "rbrack": ']', "lcub": '{', "lbrace": '{',
	"rcub": '}', "rbrace": '}', "lpar": '(', "rpar": ')', "num": '#', "dollar": '$', "excl": '!',
	"percnt": '%', "plus": '+', "period": '.', "ast": '*', "midast": '*', "quest": '?', "commat": '@',
	"lowbar": '_', "grave": '`', "Hat": '^', "verbar": '|', "vert": '|', "tilde": '~', "nbsp": 0xa0,
	"Tab": '\t', "NewLine": '\n', "hyphen": 0x2010, "dash": 0x2010,
	// Invisible runes, removed from the view like the runes themselves.
	"shy": 0xad, "zwnj": 0x200c, "zwj": 0x200d, "lrm": 0x200e, "rlm": 0x200f, "ZeroWidthSpace": 0x200b,
	"NegativeVeryThinSpace": 0x200b, "NegativeThinSpace": 0x200b, "NegativeMediumSpace": 0x200b,
	"NegativeThickSpace": 0x200b, "NoBreak": 0x2060, "af": 0x2061, "ApplyFunction": 0x2061,
	"it": 0x2062, "InvisibleTimes": 0x2062, "ic": 0x2063, "InvisibleComma": 0x2063,
}

// maxEntityName is the longest name in entityNames.
const maxEntityName = len("NegativeVeryThinSpace")

// legacyNames are the names of entityNames a browser also reads without
// their semicolon (&quotpassword&quot is "password").
var legacyNames = []string{"quot", "QUOT", "lt", "LT", "gt", "GT"}

// entityAt decodes the character reference that t starts with (t[0] is
// '&') and returns the rune and the bytes it takes, or width 0 when t does
// not start with one. Numeric references may omit the semicolon, as
// browsers read them; named ones may not.
func entityAt(t string) (rune, int) {
	i := 1
	for i < maxEntity {
		r, w := referenceAt(t[i:])
		if w == 0 {
			break
		}
		if r != '&' || i+w >= len(t) || t[i+w] != '#' && !isLetter(t[i+w]) {
			return r, i + w
		}
		i += w // &amp;quot; and &#38;quot; are &quot; escaped again
	}
	if i > 1 {
		return '&', i // &amp;, and a run of them, is &
	}
	return 0, 0
}

// referenceAt decodes "quot;", "#34;" or "#x22;" at the start of t (after
// an '&'), or returns width 0.
func referenceAt(t string) (rune, int) {
	if t == "" {
		return 0, 0
	}
	if t[0] != '#' {
		j := 0
		for j < len(t) && j <= maxEntityName && isLetter(t[j]) {
			j++
		}
		if j > 0 && j < len(t) && t[j] == ';' {
			if r, ok := entityNames[t[:j]]; ok {
				return r, j + 1
			}
		}
		for _, name := range legacyNames {
			if strings.HasPrefix(t, name) {
				return entityNames[name], len(name)
			}
		}
		return 0, 0
	}
	j, base := 1, uint32(10)
	if len(t) > 1 && t[1]|0x20 == 'x' {
		j, base = 2, 16
	}
	start := j
	for j < len(t) && j < maxEntity && t[j] == '0' {
		j++ // leading zeros, any count a browser reads
	}
	var v uint32
	for digits := 0; j < len(t) && j < maxEntity; digits++ {
		c := t[j]
		if !hexDigit[c] || base == 10 && (c < '0' || c > '9') {
			break
		}
		if digits < 8 {
			v = v*base + uint32(unhex(c))
		} else {
			v = utf8.MaxRune + 1 // out of range, as a browser reads it
		}
		j++
	}
	if j == start {
		return 0, 0
	}
	if j < len(t) && t[j] == ';' {
		j++
	}
	if v == 0 || v > utf8.MaxRune || v >= 0xd800 && v < 0xe000 {
		return utf8.RuneError, j
	}
	return rune(v), j
}

// isLetter reports whether c is an ASCII letter.
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
