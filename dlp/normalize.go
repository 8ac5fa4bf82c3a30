package dlp

import (
	"math/bits"
	"sort"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalized scanning: a secret with a zero-width space, soft hyphen or word
// joiner inside it, or written in fullwidth letters, is the same secret to a
// reader (and to a model). Texts that hold such runes are scanned a second
// time as a normalized view (invisible runes removed, every other rune in its
// NFKC form), and each match in the view is mapped back to the bytes of the
// original text it came from, which are what is redacted.
//
// Clean ASCII text never builds a view: one pass over the bytes, eight at a
// time, finds that there is no byte above 0x7f. Otherwise only windows of
// normWindow bytes around the runes that change are normalized and scanned
// again.

// normWindow is how many bytes around each changed rune are normalized and
// scanned again: a secret with an invisible or compatibility rune inside it
// lies within this distance of the rune (unless it is longer: then its match
// reaches the window's edge and the whole text's view is scanned).
const normWindow = 2048

// spans finds every secret in text: in the text as it is and, when it holds
// invisible or compatibility runes, in the normalized view of the windows
// around them.
func (s *Scanner) spans(text string, depth int) []span {
	sp := s.rawSpans(text, depth)
	first := firstChange(text)
	if first < 0 {
		return sp
	}
	ws := changedWindows(text, first)
	if ws == nil {
		return sp
	}
	ws = coverSpans(text, ws, sp)
	n := len(sp)
	for _, w := range ws {
		v, ok := normalizedView(text[w.lo:w.hi], 0)
		if !ok {
			continue
		}
		for _, x := range s.rawSpans(v.text, depth) {
			if (x.start == 0 && w.lo > 0) || (x.end == len(v.text) && w.hi < len(text)) {
				return s.fullViewSpans(text, first, sp[:n], depth)
			}
			x.start, x.end = w.lo+v.origStart(x.start), w.lo+v.origEnd(x.end)
			sp = append(sp, x)
		}
	}
	if len(sp) == n {
		return sp
	}
	return resolve(sp)
}

// fullViewSpans adds the spans of the normalized view of the whole text.
func (s *Scanner) fullViewSpans(text string, first int, sp []span, depth int) []span {
	v, ok := normalizedView(text, first)
	if !ok {
		return sp
	}
	for _, x := range s.rawSpans(v.text, depth) {
		x.start, x.end = v.origStart(x.start), v.origEnd(x.end)
		sp = append(sp, x)
	}
	return resolve(sp)
}

// changedWindows returns the merged windows of normWindow bytes around each
// changed rune or character reference, on rune boundaries, or nil when
// nothing changes. The next hidden byte and the next reference are each
// looked up once they are passed: text full of references does not look
// again for a hidden byte far ahead at each, nor the other way round.
func changedWindows(text string, first int) []window {
	var ws []window
	hid, amp := -1, -1 // next hidden byte and reference at or after i; len(text): none
	for i := first; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf && !hiddenControl(c) && (c != '&' || amp != i) {
			if hid < i {
				hid = nextAt(text, i, firstHidden)
			}
			if amp < i {
				if amp = nextRef(text, i); amp < 0 {
					amp = len(text)
				}
			}
			if i = min(hid, amp); i == len(text) {
				break
			}
		}
		var w int
		if text[i] == '&' {
			if _, w = entityAt(text[i:]); w == 0 {
				i++
				continue
			}
		} else {
			var r rune
			r, w = utf8.DecodeRuneInString(text[i:])
			if !changed(r, text[i:i+w]) {
				i += w
				continue
			}
		}
		lo, hi := runeStart(text, max(0, i-normWindow)), runeEnd(text, min(len(text), i+w+normWindow))
		if n := len(ws); n > 0 && lo <= ws[n-1].hi {
			ws[n-1].hi = hi
		} else {
			ws = append(ws, window{lo: lo, hi: hi})
		}
		i += w
	}
	return ws
}

// nextAt is the index in text of what find finds in text[i:], or
// len(text) when it finds nothing.
func nextAt(text string, i int, find func(string) int) int {
	if k := find(text[i:]); k >= 0 {
		return i + k
	}
	return len(text)
}

// firstChange is the index of the first byte where a normalized view can
// differ from text (a byte above 0x7f, a hidden control, a character
// reference), or -1: firstHidden's pass, sixteen bytes at a time, that also
// finds each '&' followed by a '#' or a letter and decodes only those
// (code's && and &x) cost no more than a word's masks).
func firstChange(s string) int {
	i := 0
	for ; len(s)-i >= 16; i += 16 {
		a, b := load64(s[i:i+8]), load64(s[i+8:i+16])
		if (hiddenMask(a)|hiddenMask(b))&high != 0 {
			break
		}
		if (ampMask(a)|ampMask(b))&high == 0 {
			continue
		}
		if k := refIn(s, i, a); k >= 0 {
			return k
		}
		if k := refIn(s, i+8, b); k >= 0 {
			return k
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || hiddenControl(c) || c == '&' && refAt(s, i) {
			return i
		}
	}
	return -1
}

// nextRef is the index of the first character reference in text at or
// after i, or -1.
func nextRef(text string, i int) int {
	for ; len(text)-i >= 8; i += 8 {
		if k := refIn(text, i, load64(text[i:i+8])); k >= 0 {
			return k
		}
	}
	for ; i < len(text); i++ {
		if text[i] == '&' && refAt(text, i) {
			return i
		}
	}
	return -1
}

// refIn is the index of the first character reference that starts in the
// word x = text[i:i+8], or -1. Only an '&' that a '#' or an ASCII letter
// follows is decoded.
func refIn(text string, i int, x uint64) int {
	m := ampMask(x)
	if m == 0 {
		return -1
	}
	var next uint64 // the byte after the word, if it is ASCII
	if i+8 < len(text) && text[i+8] < utf8.RuneSelf {
		next = uint64(text[i+8])
	}
	// y holds the byte after each byte of x, its bytes below 0x80 but
	// those of x above 0x7f (then x is past firstChange's fast path).
	y := (x>>8 | next<<56) &^ high
	z := y | 0x20*ones
	letter := (z + (0x80-'a')*ones) &^ (z + (0x80-'z'-1)*ones)
	t := y ^ '#'*ones
	hash := (t - ones) &^ t
	for m &= (letter | hash) & high; m != 0; m &= m - 1 {
		if k := i + bits.TrailingZeros64(m)>>3; refAt(text, k) {
			return k
		}
	}
	return -1
}

// ampMask has the top bit set of each byte of x that is '&' (and possibly
// of a byte above one: refAt looks at the byte itself).
func ampMask(x uint64) uint64 {
	t := x ^ 0x26*ones
	return (t - ones) &^ t & high
}

// refAt reports whether a character reference starts at text[k] that
// changes what the rules see. An '&' is decoded only when a '#' or a
// letter follows it: code's && and &x) cost a byte's test each. &amp;
// alone is none (a page's links hold it everywhere, and no rule looks for
// the '&' it stands for); &amp;quot; is one.
func refAt(text string, k int) bool {
	if text[k] != '&' || k+1 >= len(text) {
		return false
	}
	if c := text[k+1]; c != '#' && (c|0x20 < 'a' || c|0x20 > 'z') {
		return false
	}
	r, w := entityAt(text[k:])
	return w > 0 && r != '&'
}

// coverSpans widens each window over the raw spans that touch it: a match
// that stopped at an invisible rune must be seen whole, from its start, in
// the view. Windows that come to overlap are merged.
func coverSpans(text string, ws []window, sp []span) []window {
	if len(sp) == 0 {
		return ws
	}
	for i := range ws {
		for _, x := range sp {
			if x.start <= ws[i].hi && x.end >= ws[i].lo {
				ws[i].lo = runeStart(text, min(ws[i].lo, max(0, x.start-1)))
				ws[i].hi = runeEnd(text, max(ws[i].hi, min(len(text), x.end+1)))
			}
		}
	}
	out := ws[:1]
	for _, w := range ws[1:] {
		if last := &out[len(out)-1]; w.lo <= last.hi {
			last.hi = max(last.hi, w.hi)
			continue
		}
		out = append(out, w)
	}
	return out
}

// runeStart moves p back to the start of the rune it falls in.
func runeStart(text string, p int) int {
	for k := 0; k < utf8.UTFMax && p > 0 && p < len(text) && !utf8.RuneStart(text[p]); k++ {
		p--
	}
	return p
}

// runeEnd moves p forward to the start of the next rune.
func runeEnd(text string, p int) int {
	for k := 0; k < utf8.UTFMax && p < len(text) && !utf8.RuneStart(text[p]); k++ {
		p++
	}
	return p
}

// escapeLen returns the length of the terminal escape sequence that t
// starts with (t[0] is ESC), which a terminal renders as nothing: a CSI
// sequence (ESC [ parameters final, such as the colour codes grep
// --color puts around a match), an OSC sequence (ESC ] ... BEL or ESC \),
// or ESC, intermediates and one final byte. A sequence that does not end
// within maxEscape bytes is taken as the ESC alone.
func escapeLen(t string) int {
	const maxEscape = 256
	n := min(len(t), maxEscape)
	if n < 2 {
		return 1
	}
	switch t[1] {
	case '[':
		for i := 2; i < n; i++ {
			if c := t[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			} else if c < 0x20 || c > 0x7e {
				return 1
			}
		}
	case ']':
		for i := 2; i < n; i++ {
			if t[i] == 0x07 {
				return i + 1
			}
			if t[i] == 0x1b && i+1 < n && t[i+1] == '\\' {
				return i + 2
			}
		}
	default:
		for i := 1; i < n; i++ {
			c := t[i]
			if c >= 0x20 && c <= 0x2f {
				continue
			}
			if c >= 0x30 && c <= 0x7e {
				return i + 1
			}
			return 1
		}
	}
	return 1
}

// hiddenControl reports whether b is an ASCII control character that
// renders as nothing (NUL, backspace, escape, DEL, ...): every control but
// the whitespace \t \n \v \f \r, which separates tokens as a space does.
func hiddenControl(b byte) bool {
	return b < 0x09 || (b >= 0x0e && b < 0x20) || b == 0x7f
}

// firstHidden returns the index of the first byte above 0x7f or the first
// hidden control character, or -1: where a normalized view can differ from
// the text. Sixteen bytes at a time, each test exact per byte: b|0x80
// minus n keeps its top bit exactly when b >= n (no borrow crosses a byte).
func firstHidden(s string) int {
	i := 0
	for ; len(s)-i >= 16; i += 16 {
		if (hiddenMask(load64(s[i:i+8]))|hiddenMask(load64(s[i+8:i+16])))&high != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || hiddenControl(s[i]) {
			return i
		}
	}
	return -1
}

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// hiddenMask has the top bit of each byte of x set where that byte is above
// 0x7f or a hidden control (and possibly other bits elsewhere).
func hiddenMask(x uint64) uint64 {
	u := x | high
	below09, from0e, from20 := ^(u - 0x09*ones), u-0x0e*ones, u-0x20*ones
	del := (x &^ high) + ones // top bit set where the low seven bits are all ones
	return x | del | below09 | from0e&^from20
}

// load64 returns the first 8 bytes of t, little-endian; the compiler
// makes it one load.
func load64(t string) uint64 {
	_ = t[7]
	return uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
		uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
}

// invisible reports whether r is removed from the normalized view: format
// characters (soft hyphen, zero-width space/joiners, word joiner, BOM, bidi
// controls, tags), C0 controls but whitespace, DEL, C1 controls, variation selectors, the
// combining grapheme joiner and the Hangul fillers.
func invisible(r rune) bool {
	switch {
	case r < 0x80:
		return hiddenControl(byte(r))
	case r <= 0x9f, r == 0x34f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// changed reports whether the view differs from the text at rune r.
func changed(r rune, enc string) bool {
	if r == utf8.RuneError && len(enc) == 1 {
		return false
	}
	if invisible(r) {
		return true
	}
	if len(norm.NFKC.PropertiesString(enc).Decomposition()) == 0 {
		return false // no decomposition: NFKC leaves the rune alone
	}
	var buf [4 * utf8.UTFMax]byte
	return string(norm.NFKC.AppendString(buf[:0], enc)) != enc
}

// edit is one rune of the original that the view replaces: text[oStart:oEnd]
// became view[vStart:vEnd] (empty for an invisible rune).
type edit struct{ vStart, vEnd, oStart, oEnd int }

type view struct {
	text  string
	edits []edit
}

// normalizedView builds the view of text, whose first byte that may change
// (firstChange) is at first. ok is false when nothing changes (then there
// is nothing new to scan).
func normalizedView(text string, first int) (view, bool) {
	var (
		b     []byte
		edits []edit
		last  int // text[last:i] is not yet copied to b
	)
	for i := first; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && !hiddenControl(c) && c != '&' {
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		if c == 0x1b {
			w = escapeLen(text[i:])
		}
		enc := text[i : i+w]
		if c == '&' {
			if r, w = entityAt(text[i:]); w == 0 {
				i++
				continue
			}
			enc = string(r) // the rune it stands for, in its NFKC form below
		} else if c >= utf8.RuneSelf && !changed(r, enc) {
			i += w
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(text))
		}
		b = append(b, text[last:i]...)
		e := edit{vStart: len(b), oStart: i, oEnd: i + w}
		if !invisible(r) {
			b = norm.NFKC.AppendString(b, enc)
		}
		e.vEnd = len(b)
		edits = append(edits, e)
		i += w
		last = i
	}
	if b == nil {
		return view{}, false
	}
	b = append(b, text[last:]...)
	return view{text: string(b), edits: edits}, true
}

// at returns the last edit starting at or before view offset p, or nil.
func (v *view) at(p int) *edit {
	k := sort.Search(len(v.edits), func(i int) bool { return v.edits[i].vStart > p }) - 1
	if k < 0 {
		return nil
	}
	return &v.edits[k]
}

// origStart maps a view offset where a span starts to the original offset.
func (v *view) origStart(p int) int {
	e := v.at(p)
	switch {
	case e == nil:
		return p
	case p < e.vEnd:
		return e.oStart
	}
	return e.oEnd + p - e.vEnd
}

// origEnd maps a view offset where a span ends (exclusive) to the original
// offset: the end of the original rune the last byte came from.
func (v *view) origEnd(p int) int {
	if p == 0 {
		return 0
	}
	e := v.at(p - 1)
	switch {
	case e == nil:
		return p
	case p-1 < e.vEnd:
		return e.oEnd
	}
	return e.oEnd + p - e.vEnd
}
