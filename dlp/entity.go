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
// reads it after both.

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
}

// entityAt decodes the character reference that t starts with (t[0] is
// '&') and returns the rune and the bytes it takes, or width 0 when t does
// not start with one. Numeric references may omit the semicolon, as
// browsers read them; named ones may not.
func entityAt(t string) (rune, int) {
	i := 1
	for i < maxEntity && strings.HasPrefix(t[i:], "amp;") {
		i += 4 // &amp;quot; is &quot; escaped again
	}
	if r, w := referenceAt(t[i:]); w > 0 {
		return r, i + w
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
		for j < len(t) && j < 10 && (t[j]|0x20 >= 'a' && t[j]|0x20 <= 'z') {
			j++
		}
		if j == 0 || j >= len(t) || t[j] != ';' {
			return 0, 0
		}
		if r, ok := entityNames[t[:j]]; ok {
			return r, j + 1
		}
		return 0, 0
	}
	j, base := 1, uint32(10)
	if len(t) > 1 && t[1]|0x20 == 'x' {
		j, base = 2, 16
	}
	start := j
	var v uint32
	for j < len(t) && j-start < 8 {
		c := t[j]
		d := uint32(unhex(c))
		if !hexDigit[c] || base == 10 && (c < '0' || c > '9') {
			break
		}
		v = v*base + d
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
