package dlp

import (
	"strings"
	"unicode/utf8"
)

// The rules that read a Kubernetes Secret's YAML data block have matches of
// any length, made of lines (a TLS key is kilobytes of entries): their
// regexes run on the regexp package's NFA, at 4-18 MB/s over a Secret's
// entries, about 1.6 ms for a manifest of 4 KiB with the four of them.
// Each is also written here as a reader of lines, which decides every line
// of the block once from its first bytes (its indentation, a comment, a
// list item) and finds the next line's start with strings.IndexByte: the
// same matches as the regex, at the same offsets, with the same groups
// (TestK8sNativeAgrees, FuzzK8sNative), at a few hundred MB/s.
//
// The scanner uses a reader in place of the regex of a rule whose regex is
// exactly the built-in one (the reader follows that regex, not the rule's
// name). A reader counts the bytes it reads; a text crafted to make it read
// the same lines many times over (nested "data:" keys) makes it give up
// and the regex run instead: linear time either way.

// nativeFind is a reader: it appends to dst the matches of its regex in
// text, as regexp's FindAllStringSubmatchIndex returns them, or reports
// false when it read more than budget bytes.
type nativeFind func(text string, budget int, dst [][]int) ([][]int, bool)

// natives maps a built-in regex to its reader.
var natives = map[string]nativeFind{
	k8sKindFirst:  kindFirstFind,
	k8sStringData: stringDataFind,
	k8sDataFirst:  dataFirstFind,
	k8sDataBase64: dataBase64Find,
}

// isSpaceRE is \s of RE2's Perl classes: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isWordRE is an ASCII word byte (\b).
func isWordRE(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// k8sReader reads one text, counting the bytes it reads.
//
// Each hit of a reader's literal is read on its own, as FindAll tries each
// start, and a text crafted with many hits whose reading runs over the
// same lines (nested "data:" keys, kind lines in one comment, a foreign
// line that ends in "data:") made it read them once per hit, past its
// budget, and the regex ran over the whole text at the NFA's speed: a
// second for a Secret of 1 MiB after 20 KiB of such lines (red team rud,
// BenchmarkExhaustedSecret). What a hit's reading depends on alone is
// remembered (the end of the last line found, the last block read, the
// end of the last run of entries that matched nothing), so such hits cost
// a few bytes each.
type k8sReader struct {
	text string
	work int
	// lineFrom..lineTo: text[lineTo] is the first '\n' at or after any
	// index in between (lineTo: len(text) when none), or lineTo < 0.
	lineFrom, lineTo int
	// blockAt: block(blockAt) is blockEnd, or blockAt < 0.
	blockAt, blockEnd int
}

// newK8sReader returns a reader of text.
func newK8sReader(text string) k8sReader {
	return k8sReader{text: text, lineTo: -1, blockAt: -1}
}

// lineEnd returns the index of the first '\n' at or after i, or len(text).
func (r *k8sReader) lineEnd(i int) int {
	if r.lineFrom <= i && i <= r.lineTo {
		r.work++
		return r.lineTo
	}
	j := strings.IndexByte(r.text[i:], '\n')
	if j < 0 {
		j = len(r.text) - i
	}
	r.work += j + 1
	r.lineFrom, r.lineTo = i, i+j
	return i + j
}

// run returns the end of the run of bytes from i for which in is true,
// read up to limit bytes: a longer run ends at i+limit.
func (r *k8sReader) run(i, limit int, in func(byte) bool) int {
	end := min(len(r.text), i+limit)
	for i < end && in(r.text[i]) {
		i++
	}
	return i
}

func isBlank(c byte) bool   { return c == ' ' || c == '\t' }
func isDashed(c byte) bool  { return c == ' ' || c == '\t' || c == '-' || c == '?' }
func isKeyByte(c byte) bool { return c == '.' || c == '-' || isWordRE(c) }
func isB64Byte(c byte) bool {
	return c == '+' || c == '/' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// has reports whether text holds lit at i.
func (r *k8sReader) has(i int, lit string) bool {
	return len(r.text)-i >= len(lit) && r.text[i:i+len(lit)] == lit
}

// sep reports whether the line at q is a k8sSep (a blank line or a
// comment indented at most 16) and returns the next line's start.
func (r *k8sReader) sep(q int) (int, bool) {
	t := r.text
	i := q
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r') {
		i++
	}
	if i < len(t) && t[i] == '\n' {
		return i + 1, true
	}
	if j := r.run(q, 17, isBlank); j-q <= 16 && j < len(t) && t[j] == '#' {
		if e := r.lineEnd(j); e < len(t) {
			return e + 1, true
		}
	}
	return 0, false
}

// line reports whether the line at q is a k8sLine and returns its end (its
// '\n', or len(text)).
func (r *k8sReader) line(q int) (int, bool) {
	t := r.text
	i := r.run(q, 17, isBlank)
	if n := i - q; n < 1 || n > 16 || i >= len(t) {
		return 0, false
	}
	switch c := t[i]; {
	case c == '#' || isSpaceRE(c):
		return 0, false
	case c == '-':
		if i+1 >= len(t) {
			return 0, false
		}
		if !isSpaceRE(t[i+1]) {
			break // -[^\s]
		}
		j := r.run(i+1, 9, isBlank)
		if n := j - i - 1; n < 1 || n > 8 || j >= len(t) {
			return 0, false
		}
		switch f := t[j]; {
		case isSpaceRE(f):
			return 0, false
		case f == 'a' || f == 'k':
			not := byte('p')
			if f == 'k' {
				not = 'i'
			}
			if j+1 >= len(t) || t[j+1] == not || isSpaceRE(t[j+1]) {
				return 0, false
			}
		}
	}
	return r.lineEnd(i), true
}

// block returns the end of the k8sBlock that starts at p, or -1.
func (r *k8sReader) block(p int) int {
	if p == r.blockAt {
		r.work++
		return r.blockEnd
	}
	e := r.readBlock(p)
	r.blockAt, r.blockEnd = p, e
	return e
}

// readBlock is block, read.
func (r *k8sReader) readBlock(p int) int {
	q := r.seps(p, true)
	e, ok := r.line(q)
	if !ok {
		return -1
	}
	for {
		if e == len(r.text) {
			return e // $
		}
		q = r.seps(e+1, true)
		next, ok := r.line(q)
		if !ok {
			return r.seps(e+1, false) // \n k8sSep*
		}
		e = next
	}
}

// seps returns the start of the first line from q that is not a k8sSep,
// nor a k8sForeign line when foreign.
func (r *k8sReader) seps(q int, foreign bool) int {
	for q < len(r.text) {
		next, ok := r.sep(q)
		if !ok && foreign {
			next, ok = r.foreign(q)
		}
		if !ok {
			break
		}
		q = next
	}
	return q
}

// foreign reports whether the line at q is a k8sForeign line with a line
// break at its end, and returns the next line's start.
func (r *k8sReader) foreign(q int) (int, bool) {
	if !foreignHead(r.text[q:]) {
		return 0, false
	}
	if e := r.lineEnd(q); e < len(r.text) {
		return e + 1, true
	}
	return 0, false
}

// foreignHead reports whether t starts as a k8sForeign line does.
func foreignHead(t string) bool {
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case len(t) >= 6 && strings.IndexByte("IWEF", t[0]) >= 0 && digits(t[1:5]) && (t[5] == ' ' || t[5] == '\t'),
		len(t) >= 10 && digits(t[:4]) && t[4] == '-' && digits(t[5:7]) && t[7] == '-' && digits(t[8:10]),
		len(t) >= 8 && digits(t[:2]) && t[2] == ':' && digits(t[3:5]) && t[5] == ':' && digits(t[6:8]),
		strings.HasPrefix(t, "level="), strings.HasPrefix(t, `time="`):
		return true
	}
	t = strings.TrimPrefix(t, "[")
	for _, w := range [...]string{"warning", "error", "warn", "info", "debug", "fatal"} {
		if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) && strings.IndexByte(": \t]", t[len(w)]) >= 0 {
			return true
		}
	}
	return false
}

// anchor reads `[&!][^\s#]{1,64}` at i and returns the end of each rune of
// its name, at most 64, and whether the name ends after the last of them
// (no 65th rune follows).
func (r *k8sReader) anchor(i int, ends []int) ([]int, bool) {
	t := r.text
	if i >= len(t) || t[i] != '&' && t[i] != '!' {
		return nil, false
	}
	for j := i + 1; j < len(t); {
		c, w := utf8.DecodeRuneInString(t[j:])
		if c == '#' || c < utf8.RuneSelf && isSpaceRE(byte(c)) {
			break
		}
		if len(ends) == 64 {
			r.work += 64
			return ends, false
		}
		j += w
		ends = append(ends, j)
	}
	r.work += len(ends)
	return ends, true
}

// blank returns the end of `[ \t]{0,4}` at i, or -1 when more follow.
func (r *k8sReader) blank(i int) int {
	j := r.run(i, 5, isBlank)
	if j-i > 4 {
		return -1
	}
	return j
}

// tail matches `(?:k8sBlockKey(?P<secret>k8sBlock)|k8sFlow)` at k, after a
// data or stringData key's colon: it returns the match's end and the
// groups' bounds (-1 when they did not take part), or end -1.
func (r *k8sReader) tail(k int) (end int, g [4]int) {
	g = [4]int{-1, -1, -1, -1}
	t := r.text
	i := r.blank(k)
	if i < 0 || i >= len(t) {
		return -1, g
	}
	var buf [64]int
	ends, whole := r.anchor(i, buf[:0])
	if (t[i] == '&' || t[i] == '!') && len(ends) == 0 {
		return -1, g
	}
	// k8sBlockKey: the anchor's whole name, blanks, a comment, the end.
	j := i
	if len(ends) > 0 {
		j = -1
		if whole {
			j = r.blank(ends[len(ends)-1])
		}
	}
	if j >= 0 {
		b := -1
		switch {
		case r.has(j, "#"):
			if e := r.lineEnd(j); e < len(t) {
				b = e + 1
			}
		case r.has(j, "\r\n"):
			b = j + 2
		case r.has(j, "\n"):
			b = j + 1
		}
		if b >= 0 {
			if e := r.block(b); e >= 0 {
				g[0], g[1] = b, e
				return e, g
			}
		}
	}
	// k8sFlow: the longest name the rest matches after.
	if len(ends) == 0 {
		if t[i] == '{' {
			return r.flow(i, g)
		}
		return -1, g
	}
	for n := len(ends) - 1; n >= 0; n-- {
		j := ends[n]
		if n == len(ends)-1 && whole {
			if j = r.blank(j); j < 0 {
				continue
			}
		}
		if j < len(t) && t[j] == '{' {
			if end, g := r.flow(j, g); end >= 0 {
				return end, g
			}
		}
	}
	return -1, g
}

// flow matches `\{(?P<secret2>[^{}]*)(?:\}|$)` at open.
func (r *k8sReader) flow(open int, g [4]int) (int, [4]int) {
	t := r.text
	j := strings.IndexAny(t[open+1:], "{}")
	r.work += max(j, len(t)-open) + 1
	switch {
	case j < 0:
		g[2], g[3] = open+1, len(t)
		return len(t), g
	case t[open+1+j] == '}':
		g[2], g[3] = open+1, open+1+j
		return open + 2 + j, g
	}
	return -1, g
}

// dataKey matches k8sDataKey at the line start q and returns the end of
// the colon, or -1.
func (r *k8sReader) dataKey(q int) int {
	i := r.run(q, 17, isDashed)
	if i-q > 16 {
		return -1
	}
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	switch {
	case r.has(i, "data"):
		return r.keyEnd(i + 4)
	case r.has(i, "stringData"):
		return r.keyEnd(i + 10)
	}
	return -1
}

// keyEnd matches k8sKeyEnd at i, after a key's word, and returns the end
// of the colon, or -1.
func (r *k8sReader) keyEnd(i int) int {
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	if i = r.blank(i); i < 0 {
		return -1
	}
	brk := 0
	switch {
	case r.has(i, "\r\n"):
		brk = 2
	case r.has(i, "\n"):
		brk = 1
	}
	if brk > 0 {
		j := r.run(i+brk, 17, isDashed)
		if j-i-brk > 16 {
			return -1
		}
		i = j
	}
	if !r.has(i, ":") {
		return -1
	}
	return i + 1
}

// prop matches `(?:[&!][^\s#]{1,64}[ \t]{1,4})?` at i (a tag or an
// anchor before a value) and returns its end, or -1.
func (r *k8sReader) prop(i int) int {
	if i >= len(r.text) || r.text[i] != '&' && r.text[i] != '!' {
		return i
	}
	var buf [64]int
	ends, whole := r.anchor(i, buf[:0])
	if len(ends) == 0 || !whole {
		return -1
	}
	j := ends[len(ends)-1]
	k := r.run(j, 5, isBlank)
	if n := k - j; n < 1 || n > 4 {
		return -1
	}
	return k
}

// sameDoc reports whether the line at q is a k8sSameDoc line and returns
// the next line's start.
func (r *k8sReader) sameDoc(q int) (int, bool) {
	t := r.text
	if q >= len(t) {
		return 0, false
	}
	if t[q] == '-' && (q+1 >= len(t) || t[q+1] == '-' || isSpaceRE(t[q+1])) {
		return 0, false
	}
	if e := r.lineEnd(q); e < len(t) {
		return e + 1, true
	}
	return 0, false
}

// kindLine matches k8sSecretKind `["']?[ \t]{0,4}(?:#[^\n]*)?\r?\n` at p
// and returns the next line's start, or -1.
func (r *k8sReader) kindLine(p int) int {
	t := r.text
	i := r.secretWord(p)
	if i < 0 {
		return -1
	}
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	if i = r.blank(i); i < 0 {
		return -1
	}
	switch {
	case r.has(i, "#"):
		if e := r.lineEnd(i); e < len(t) {
			return e + 1
		}
	case r.has(i, "\r\n"):
		return i + 2
	case r.has(i, "\n"):
		return i + 1
	}
	return -1
}

// secretWord matches k8sSecretKind at p and returns its end, or -1.
func (r *k8sReader) secretWord(p int) int {
	if !r.has(p, "kind") {
		return -1
	}
	i := r.keyEnd(p + 4)
	if i < 0 {
		return -1
	}
	if i = r.blank(i); i < 0 {
		return -1
	}
	if i = r.prop(i); i < 0 {
		return -1
	}
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	if !r.has(i, "Secret") {
		return -1
	}
	return i + 6
}

// findAll runs at, which matches at a start or returns nil, at each
// occurrence of lit as FindAll does: resuming after each match.
func (r *k8sReader) findAll(lit string, budget int, dst [][]int, at func(p int) []int) ([][]int, bool) {
	for pos := 0; pos < len(r.text); {
		j := strings.Index(r.text[pos:], lit)
		if j < 0 {
			break
		}
		p := pos + j
		r.work += j + len(lit)
		if m := at(p); m != nil {
			dst = append(dst, m)
			pos = m[1]
		} else {
			pos = p + 1
		}
		if r.work > budget {
			return dst, false
		}
	}
	return dst, true
}

// kindFirstFind is k8sKindFirst's reader: the kind line, at most 16 lines
// of its document (the fewest that a data key with a block or flow after
// it follows), the key, then its block or flow.
func kindFirstFind(text string, budget int, dst [][]int) ([][]int, bool) {
	r := newK8sReader(text)
	failed := -1 // the lines from failed after a kind line matched nothing
	return r.findAll("kind", budget, dst, func(p int) []int {
		q := r.kindLine(p)
		if q < 0 || q == failed {
			return nil
		}
		from := q
		for k := 0; ; k++ {
			if c := r.dataKey(q); c >= 0 {
				if end, g := r.tail(c); end >= 0 {
					return []int{p, end, g[0], g[1], g[2], g[3]}
				}
			}
			var ok bool
			if k == 16 {
				failed = from
				return nil
			}
			if q, ok = r.sameDoc(q); !ok {
				failed = from
				return nil
			}
		}
	})
}

// stringDataFind is k8sStringData's reader.
func stringDataFind(text string, budget int, dst [][]int) ([][]int, bool) {
	r := newK8sReader(text)
	return r.findAll("stringData", budget, dst, func(p int) []int {
		c := r.keyEnd(p + 10)
		if c < 0 {
			return nil
		}
		if end, g := r.tail(c); end >= 0 {
			return []int{p, end, g[0], g[1], g[2], g[3]}
		}
		return nil
	})
}

// dataHead matches `data` k8sKeyEnd `[ \t]{0,4}\r?\n` (blanks: at most 4
// blanks) at p and returns the next line's start, or -1.
func (r *k8sReader) dataHead(p int, blanks bool) int {
	i := r.keyEnd(p + 4)
	if i < 0 {
		return -1
	}
	if blanks {
		if i = r.blank(i); i < 0 {
			return -1
		}
	}
	switch {
	case r.has(i, "\r\n"):
		return i + 2
	case r.has(i, "\n"):
		return i + 1
	}
	return -1
}

// entryKey matches k8sEntryKey at q and returns the end of the colon, or
// -1.
func (r *k8sReader) entryKey(q int) int {
	i := r.run(q, 17, isBlank)
	if n := i - q; n < 1 || n > 16 {
		return -1
	}
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	j := r.run(i, 254, isKeyByte)
	if n := j - i; n < 1 || n > 253 {
		return -1
	}
	if r.has(j, `"`) || r.has(j, `'`) {
		j++
	}
	if j = r.blank(j); j < 0 || !r.has(j, ":") {
		return -1
	}
	return j + 1
}

// listedKind matches `[ \t?-]{0,16}["']?` k8sSecretKind `\b` at q and
// returns its end, or -1.
func (r *k8sReader) listedKind(q int) int {
	i := r.run(q, 17, isDashed)
	if i-q > 16 {
		return -1
	}
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	e := r.secretWord(i)
	if e < 0 || e < len(r.text) && isWordRE(r.text[e]) {
		return -1
	}
	return e
}

// sameItem reports whether the line at q, which has a line break at its
// end, is a k8sSameItem line.
func (r *k8sReader) sameItem(q int) bool {
	t := r.text
	i := q
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r') {
		i++
	}
	r.work += i - q + 1
	return i < len(t) && t[i] != '-' && (t[i] == '\n' || !isSpaceRE(t[i]))
}

// dataFirstFind is k8sDataFirst's reader: the data key, its entries (the
// most after which a kind line follows within 8 lines of the object), the
// kind line.
func dataFirstFind(text string, budget int, dst [][]int) ([][]int, bool) {
	r := newK8sReader(text)
	// starts holds the start of each line from the first entry on: the
	// entries', then up to 9 more; the line at starts[c] has a line break
	// at its end when starts[c+1] is known.
	var starts, next, kinds []int
	var after []bool
	// runEnd: the run of entries and foreign lines before it, read from
	// a data key, matched nothing, nor does any part of it that ends there
	// (its ends and kind lines are among the run's).
	runEnd := -1
	return r.findAll("data", budget, dst, func(p int) []int {
		if p > 0 && isWordRE(text[p-1]) {
			return nil // \b: "metadata:"
		}
		s := r.dataHead(p, true)
		if s < 0 || s <= runEnd {
			return nil
		}
		// The entries and the foreign lines between them; after[c]: the
		// line before starts[c] is an entry.
		starts, after = append(starts[:0], s), append(after[:0], false)
		n := 0 // the line after the last entry
		q := s
		for q < len(text) {
			if r.entryKey(q) >= 0 {
				e := r.lineEnd(q)
				if e == len(text) {
					break // $: no kind line can follow
				}
				q = e + 1
				starts, after = append(starts, q), append(after, true)
				n = len(starts) - 1
			} else if next, ok := r.foreign(q); ok {
				q = next
				starts, after = append(starts, q), append(after, false)
			} else {
				break
			}
		}
		if n == 0 {
			runEnd = q
			return nil
		}
		starts = starts[:n+1]
		// The lines after the entries a kind line may come after.
		for c := n; c < n+8 && c == len(starts)-1; c++ {
			q := starts[c]
			if q >= len(text) || !r.sameItem(q) {
				break
			}
			if e := r.lineEnd(q); e < len(text) {
				starts = append(starts, e+1)
			}
		}
		// next[c]: the first line from c on that is a kind line, through
		// k8sSameItem lines only (-1: none), and kinds[c] where its match
		// ends; each line is read once.
		next = append(next[:0], make([]int, len(starts))...)
		kinds = append(kinds[:0], make([]int, len(starts))...)
		for c := len(starts) - 1; c >= 1; c-- {
			r.work++
			next[c], kinds[c] = -1, r.listedKind(starts[c])
			switch {
			case kinds[c] >= 0:
				next[c] = c
			case c+1 < len(starts) && r.sameItem(starts[c]):
				next[c] = next[c+1]
			}
		}
		for e := n; e >= 1; e-- {
			if c := next[e]; after[e] && c >= 0 && c-e <= 8 {
				return []int{p, kinds[c], s, starts[e]}
			}
		}
		runEnd = q
		return nil
	})
}

// dataBase64Find is k8sDataBase64's reader: the data key, then every entry
// whose value is padded base64 (b64Quanta).
func dataBase64Find(text string, budget int, dst [][]int) ([][]int, bool) {
	r := newK8sReader(text)
	runEnd := -1 // foreign lines from a data key up to runEnd, then no entry
	return r.findAll("data", budget, dst, func(p int) []int {
		s := r.dataHead(p, false)
		if s < 0 || s <= runEnd {
			return nil
		}
		q := s
		for at := s; at < len(text); {
			for next, ok := r.foreign(at); ok; next, ok = r.foreign(at) {
				at = next
			}
			e := r.b64Entry(at)
			if e < 0 {
				if q == s {
					runEnd = at
				}
				break
			}
			q, at = e, e
		}
		if q == s {
			return nil
		}
		return []int{p, q, s, q}
	})
}

// b64Entry matches k8sEntryKey `[ \t]{0,4}["']?` b64Quanta
// `["']?[ \t]*(?:\r?\n|$)` at q and returns its end, or -1.
func (r *k8sReader) b64Entry(q int) int {
	t := r.text
	i := r.entryKey(q)
	if i < 0 {
		return -1
	}
	if i = r.blank(i); i < 0 {
		return -1
	}
	if r.has(i, `"`) || r.has(i, `'`) {
		i++
	}
	j := r.run(i, len(t), isB64Byte)
	n := j - i
	r.work += n + 1
	switch {
	case r.has(j, "=="):
		if n%4 != 2 || n < 10 {
			return -1
		}
		j += 2
	case r.has(j, "="):
		if n%4 != 3 || n < 11 {
			return -1
		}
		j++
	case j == len(t):
		if n < 8 {
			return -1
		}
	default:
		if n%4 != 0 || n < 8 {
			return -1
		}
	}
	if r.has(j, `"`) || r.has(j, `'`) {
		j++
	}
	j = r.run(j, len(t), isBlank)
	r.work += j - i
	switch {
	case j == len(t):
		return j
	case r.has(j, "\r\n"):
		return j + 2
	case r.has(j, "\n"):
		return j + 1
	}
	return -1
}

// findAllSubmatch returns the rule's matches in text as
// FindAllStringSubmatchIndex does: by its reader when it has one and the
// reader stays within its budget, else by its regex.
func (r *rule) findAllSubmatch(text string) [][]int {
	if r.native != nil {
		if ms, ok := r.native(text, 32*len(text)+64<<10, nil); ok {
			return ms
		}
	}
	return r.re.FindAllStringSubmatchIndex(text, -1)
}
