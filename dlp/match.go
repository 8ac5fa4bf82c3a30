package dlp

import (
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// span is one redaction: text[start:end] is replaced by the rule's marker.
type span struct {
	start, end int
	rule       int32
	enc        encoding
	// lead is how far the rule's match starts before the secret: the
	// context that makes it one ("kind: Secret ... data:" before a
	// Secret's entries). A chunked scan does not cut inside it (round).
	lead int
}

type window struct{ lo, hi int }

// rawSpans finds every secret in text as it is and resolves overlaps. depth is how many
// encoding layers may still be peeled. The result is sorted and disjoint.
//
// Overlap rule (the reference scanner in the tests uses the same): order
// candidates by start, then longer first, then earlier rule; walk them in that
// order; a candidate that overlaps the current span extends it and is absorbed
// (attributed to the current span's rule), otherwise it starts a new span. So
// the leftmost match wins, no byte of any match survives, and one redaction is
// counted once.
func (s *Scanner) rawSpans(text string, depth int) []span {
	h := litHits{s: s, text: text}
	if s.ac != nil {
		s.ac.scan(text, h.add)
	}
	var cands []span
	if h.sc != nil {
		defer h.sc.put(s)
		// Only the rules that run on every text and those a literal hit
		// touched have work, taken in pattern order.
		slices.Sort(h.sc.touched)
		always, touched := s.always, h.sc.touched
		for len(always) > 0 || len(touched) > 0 {
			var i int32
			if len(touched) == 0 || len(always) > 0 && always[0] < touched[0] {
				i, always = always[0], always[1:]
			} else {
				i, touched = touched[0], touched[1:]
			}
			cands = s.matchRule(cands, text, i, h.sc)
		}
	} else {
		for _, i := range s.always {
			cands = s.matchAll(cands, text, i, 0)
		}
	}
	if s.opt.DetectEncoding && depth > 0 {
		cands = s.encoded(cands, text, depth)
	}
	return resolve(cands)
}

// matchRule appends the matches of rule i, which runs on every text or
// which the literal hits in sc touched.
func (s *Scanner) matchRule(cands []span, text string, i int32, sc *scanScratch) []span {
	r := &s.rules[i]
	switch {
	case r.mode == modeAlways:
		cands = s.matchAll(cands, text, i, 0)
	case r.mode == modeGate && sc.fired[i] >= 0:
		if lo := sc.fired[i] - r.hi - 1; r.fromHit && lo > 0 {
			cands = s.matchWindows(cands, text, i, []window{{lo: lo, hi: len(text)}})
		} else {
			cands = s.matchAll(cands, text, i, 0)
		}
	case r.mode == modeWindow && len(sc.wins[i]) > 0:
		cands = s.matchWindows(cands, text, i, sc.wins[i])
	case r.mode == modeAnchor && len(sc.wins[i]) > 0:
		cands = s.matchAnchored(cands, text, i, sc.wins[i], &sc.rd)
	}
	return cands
}

// litHits collects a scan's literal hits into per-rule tables: the first
// hit of each gated rule and the windows of the others. The tables come from
// the scanner's pool on the first hit that needs them, so that a text
// without one does not touch them.
type litHits struct {
	s    *Scanner
	text string
	sc   *scanScratch
}

// add records the automaton's hit of pattern id ending at end.
func (h *litHits) add(id int32, end int) {
	for _, ref := range h.s.refs[id] {
		if ref.exact != "" && h.text[end-ref.n:end] != ref.exact {
			continue
		}
		r := &h.s.rules[ref.rule]
		start := end - ref.n
		switch r.mode {
		case modeAnchor:
			// The match starts lo..hi bytes before the literal.
			if w := (window{lo: max(0, start-r.hi), hi: start - r.lo}); w.hi >= 0 {
				h.addWindow(ref.rule, w, false)
			}
		case modeGate:
			sc := h.tables()
			if f := sc.fired[ref.rule]; f < 0 || start < f {
				if f < 0 {
					sc.touched = append(sc.touched, ref.rule)
				}
				sc.fired[ref.rule] = start // the first hit's start
			}
		default:
			// Every match contains the literal text[start:end] and is at
			// most maxLen long, so it lies in [end-maxLen, start+maxLen].
			// One byte of margin on each side keeps the context that \b
			// and friends look at.
			h.addWindow(ref.rule, window{lo: max(0, end-r.maxLen-1), hi: min(len(h.text), start+r.maxLen+1)}, true)
		}
	}
}

// addWindow appends w to the rule's windows; with merge, a window that
// overlaps the last one extends it instead.
func (h *litHits) addWindow(rule int32, w window, merge bool) {
	sc := h.tables()
	ws := sc.wins[rule]
	switch n := len(ws); {
	case n == 0:
		sc.touched = append(sc.touched, rule)
	case merge && w.lo <= ws[n-1].hi:
		ws[n-1].hi = max(ws[n-1].hi, w.hi)
		return
	}
	sc.wins[rule] = append(ws, w)
}

// tables returns the per-rule tables, from the pool on first use.
func (h *litHits) tables() *scanScratch {
	if h.sc == nil {
		h.sc = h.s.scratch()
	}
	return h.sc
}

// matchAll appends the rule's matches over text, offset by base.
func (s *Scanner) matchAll(cands []span, text string, ri int32, base int) []span {
	r := &s.rules[ri]
	if !r.filtered() && r.native == nil {
		for _, m := range r.re.FindAllStringIndex(text, -1) {
			cands = append(cands, span{start: base + m[0], end: base + m[1], rule: ri})
		}
		return cands
	}
	for _, m := range r.findAllSubmatch(text) {
		if !r.filtered() {
			cands = append(cands, span{start: base + m[0], end: base + m[1], rule: ri})
			continue
		}
		if a, b, ok := r.pick(text, m); ok {
			cands = append(cands, span{start: base + a, end: base + b, rule: ri, lead: a - m[0]})
		}
	}
	return cands
}

// pick selects the redacted part of match m and applies the entropy floor.
func (r *rule) pick(text string, m []int) (int, int, bool) {
	a, b := m[0], m[1]
	setting := false
	for _, g := range r.secret {
		if m[2*g] < 0 {
			continue
		}
		if g == r.setting && m[2*g] == m[2*g+1] {
			setting = true // the value is in the next group
			continue
		}
		a, b = m[2*g], m[2*g+1]
		break
	}
	if a == b || setting && settingValue.MatchString(text[a:b]) {
		return 0, 0, false
	}
	if r.minEntropy > 0 && entropy(text[a:b]) < r.minEntropy {
		return 0, 0, false
	}
	if r.exclude != nil && r.exclude.MatchString(text[a:b]) {
		return 0, 0, false
	}
	if r.veto != nil && r.veto(text, m) {
		return 0, 0, false
	}
	return a, b, true
}

// filtered reports whether matches go through pick (a secret group, an
// entropy floor or an exclusion).
func (r *rule) filtered() bool {
	return r.secret != nil || r.minEntropy > 0 || r.exclude != nil || r.veto != nil
}

// matchWindows runs the rule only inside the windows around its literal
// hits. Windows are disjoint and every match lies inside one, and inside a
// window the leftmost-first search sees the same text as over the whole
// input, so this finds exactly what matchAll would, unless a match touches an
// inner window edge (where \b, ^ or $ could see a different context): then the
// rule is run over the whole text instead.
func (s *Scanner) matchWindows(cands []span, text string, ri int32, ws []window) []span {
	n := len(cands)
	r := &s.rules[ri]
	sub := r.filtered()
	for _, w := range ws {
		win := text[w.lo:w.hi]
		var ms [][]int
		if sub || r.native != nil {
			ms = r.findAllSubmatch(win)
		} else {
			ms = r.re.FindAllStringIndex(win, -1)
		}
		for _, m := range ms {
			if (m[0] == 0 && w.lo > 0) || (m[1] == len(win) && w.hi < len(text)) {
				return s.matchAll(cands[:n], text, ri, 0)
			}
			a, b, ok := m[0], m[1], true
			if sub {
				a, b, ok = r.pick(win, m)
			}
			if ok {
				cands = append(cands, span{start: w.lo + a, end: w.lo + b, rule: ri, lead: a - m[0]})
			}
		}
	}
	return cands
}

// matchAnchored finds the rule's matches by trying an anchored match at
// each possible start: the intervals in starts (from the literal hits)
// cover every start a match can have. Going through the starts in order and
// resuming after each match is what FindAll does over the whole text, minus
// the positions where no match can start, so the result is the same.
func (s *Scanner) matchAnchored(cands []span, text string, ri int32, starts []window, rd *countingReader) []span {
	r := &s.rules[ri]
	slices.SortFunc(starts, func(a, b window) int { return a.lo - b.lo })
	n := len(cands)
	// The reader counts the bytes the regex engine reads. When the literal
	// hits are so dense that the attempts read the text many times over (a
	// crafted input), one pass over the whole text is cheaper: linear time
	// either way.
	budget := 8*len(text) + 64<<10
	at0, atN, err := r.anch.get()
	if err != nil {
		return s.matchAll(cands, text, ri, 0) // not reached for a valid regex
	}
	next := 0 // FindAll resumes at the end of the previous match
	for _, iv := range starts {
		if !holdsAll(text[iv.lo:min(len(text), iv.hi+r.maxLen+1)], r.musts) {
			continue // a literal every match holds is not where one could be
		}
		for p := max(iv.lo, next); p <= iv.hi; p++ {
			if budget < 0 {
				return s.matchAll(cands[:n], text, ri, 0)
			}
			if f := r.anch.first; f != nil && !f.admits(text, p) {
				continue
			}
			m := r.anchoredAt(at0, atN, rd, text, p)
			budget -= rd.read
			if m == nil {
				continue
			}
			if a, b, ok := r.pick(text, m); ok {
				cands = append(cands, span{start: a, end: b, rule: ri, lead: a - m[0]})
			}
			next = m[1]
			p = next - 1
		}
	}
	return cands
}

// anchoredAt returns the rule's preferred match starting exactly at p, as
// submatch indices into text, or nil. The regex sees the byte before p (for
// \b, ^ in multi-line mode) and a slice of text one byte longer than the
// longest match; a match that reaches the end of that slice (where $ or \b
// could see a different context) is checked again against the whole rest of
// the text.
//
// The text goes in through an io.RuneReader on purpose: that makes package
// regexp use its NFA, which stops as soon as an anchored attempt fails (most
// attempts fail after a few bytes), instead of the backtracker, which clears a
// bitmap of program size times input length on every call.
func (r *rule) anchoredAt(at0, atN *regexp.Regexp, rd *countingReader, text string, p int) []int {
	re, base := at0, 0
	if p > 0 {
		re, base = atN, p-1
	}
	end := min(len(text), p+r.maxLen+1)
	rd.read = 0
	if rd.reset(text[base:end]); !re.MatchReader(rd) {
		return nil
	}
	rd.reset(text[base:end])
	m := re.FindReaderSubmatchIndex(rd)
	if m != nil && m[3]+base == end && end < len(text) {
		end = len(text)
		rd.reset(text[base:end])
		m = re.FindReaderSubmatchIndex(rd)
	}
	if m == nil || m[2]+base != p { // p fell inside a multi-byte rune
		return nil
	}
	m = m[2:]
	for i := range m {
		if m[i] >= 0 {
			m[i] += base
		}
	}
	return m
}

// countingReader is an io.RuneReader over a string that adds up how many
// bytes were read across resets.
type countingReader struct {
	s    string
	i    int
	read int
}

func (c *countingReader) reset(s string) { c.s, c.i = s, 0 }

func (c *countingReader) ReadRune() (rune, int, error) {
	if c.i >= len(c.s) {
		return 0, 0, io.EOF
	}
	r, w := rune(c.s[c.i]), 1
	if r >= utf8.RuneSelf {
		r, w = utf8.DecodeRuneInString(c.s[c.i:])
	}
	c.i += w
	c.read += w
	return r, w, nil
}

// resolve sorts candidates and merges overlapping ones (see spans).
func resolve(c []span) []span {
	if len(c) == 0 {
		return nil
	}
	slices.SortFunc(c, func(x, y span) int {
		switch {
		case x.start != y.start:
			return x.start - y.start
		case x.end != y.end:
			return y.end - x.end
		case x.rule != y.rule:
			return int(x.rule) - int(y.rule)
		}
		// One rule over the same bytes in two decoded views: the first
		// encoding in the list names the finding, whatever order the views
		// were scanned in (the sort is not stable).
		return int(x.enc) - int(y.enc)
	})
	out := c[:1]
	for _, x := range c[1:] {
		last := &out[len(out)-1]
		if x.start < last.end {
			last.end = max(last.end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// holdsAll reports whether text contains every one of lits.
func holdsAll(text string, lits []string) bool {
	for _, l := range lits {
		if !strings.Contains(text, l) {
			return false
		}
	}
	return true
}
