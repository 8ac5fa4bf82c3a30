package dlp

import (
	"slices"
)

// span is one redaction: text[start:end] is replaced by the rule's marker.
type span struct {
	start, end int
	rule       int32
	enc        encoding
}

type window struct{ lo, hi int }

// spans finds every secret in text and resolves overlaps. depth is how many
// encoding layers may still be peeled. The result is sorted and disjoint.
//
// Overlap rule (the reference scanner in the tests uses the same): order
// candidates by start, then longer first, then earlier rule; walk them in that
// order; a candidate that overlaps the current span extends it and is absorbed
// (attributed to the current span's rule), otherwise it starts a new span. So
// the leftmost match wins, no byte of any match survives, and one redaction is
// counted once.
func (s *Scanner) spans(text string, depth int) []span {
	var (
		fired []bool
		wins  [][]window
		cands []span
	)
	if s.ac != nil {
		s.ac.scan(text, func(id int32, end int) {
			for _, ref := range s.refs[id] {
				if ref.exact != "" && text[end-ref.n:end] != ref.exact {
					continue
				}
				r := &s.rules[ref.rule]
				if r.mode == modeGate {
					if fired == nil {
						fired = make([]bool, len(s.rules))
					}
					fired[ref.rule] = true
					continue
				}
				// Every match contains the literal text[end-n:end] and is at
				// most maxLen long, so it lies in [end-maxLen, end-n+maxLen].
				// One byte of margin on each side keeps the context that \b
				// and friends look at.
				w := window{lo: max(0, end-r.maxLen-1), hi: min(len(text), end-ref.n+r.maxLen+1)}
				if wins == nil {
					wins = make([][]window, len(s.rules))
				}
				ws := wins[ref.rule]
				if n := len(ws); n > 0 && w.lo <= ws[n-1].hi {
					ws[n-1].hi = max(ws[n-1].hi, w.hi)
				} else {
					wins[ref.rule] = append(ws, w)
				}
			}
		})
	}
	for i := range s.rules {
		r := &s.rules[i]
		switch {
		case r.mode == modeAlways, r.mode == modeGate && fired != nil && fired[i]:
			cands = s.matchAll(cands, text, int32(i), 0)
		case r.mode == modeWindow && wins != nil && len(wins[i]) > 0:
			cands = s.matchWindows(cands, text, int32(i), wins[i])
		}
	}
	if s.opt.DetectEncoding && depth > 0 {
		cands = s.encoded(cands, text, depth)
	}
	return resolve(cands)
}

// matchAll appends the rule's matches over text, offset by base.
func (s *Scanner) matchAll(cands []span, text string, ri int32, base int) []span {
	r := &s.rules[ri]
	if r.secret == nil && r.minEntropy == 0 {
		for _, m := range r.re.FindAllStringIndex(text, -1) {
			cands = append(cands, span{start: base + m[0], end: base + m[1], rule: ri})
		}
		return cands
	}
	for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
		if a, b, ok := r.pick(text, m); ok {
			cands = append(cands, span{start: base + a, end: base + b, rule: ri})
		}
	}
	return cands
}

// pick selects the redacted part of match m and applies the entropy floor.
func (r *rule) pick(text string, m []int) (int, int, bool) {
	a, b := m[0], m[1]
	for _, g := range r.secret {
		if m[2*g] >= 0 {
			a, b = m[2*g], m[2*g+1]
			break
		}
	}
	if a == b {
		return 0, 0, false
	}
	if r.minEntropy > 0 && entropy(text[a:b]) < r.minEntropy {
		return 0, 0, false
	}
	return a, b, true
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
	sub := r.secret != nil || r.minEntropy > 0
	for _, w := range ws {
		win := text[w.lo:w.hi]
		var ms [][]int
		if sub {
			ms = r.re.FindAllStringSubmatchIndex(win, -1)
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
				cands = append(cands, span{start: w.lo + a, end: w.lo + b, rule: ri})
			}
		}
	}
	return cands
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
		}
		return int(x.rule) - int(y.rule)
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
