package vault

import "strings"

// A value a reader sees in pieces (the content items of one result, the
// chunks of a command's output streamed as log or progress messages) is a
// value sent all the same: scrubbing each piece alone, neither piece is
// the value, and the reader joins them. Parts scrubs pieces joined; Stream
// scrubs the next chunk of a stream whose earlier chunks already left.

// span is an occurrence of a needle at [start, end) of a text, to be
// replaced by repl.
type span struct {
	start, end int
	repl       string
}

// spans returns the occurrences of the needles in x as [Scrubber.String]
// finds them: left to right, at each position the longest needle written
// in one piece, else one written with layout inside it (scrublayout.go),
// none overlapping.
func (s *Scrubber) spans(x string) []span {
	var out []span
	for i := 0; i < len(x); {
		end, repl := s.matchAt(x, i)
		if end < 0 {
			i++
			continue
		}
		out = append(out, span{i, end, repl})
		i = end
	}
	return out
}

// matchAt returns the end of the needle at x[i] and its marker, end < 0
// when none starts there.
func (s *Scrubber) matchAt(x string, i int) (int, string) {
	for _, k := range s.first[x[i]] {
		if n := s.needles[k].needle; strings.HasPrefix(x[i:], n) {
			return i + len(n), s.needles[k].repl // longest first
		}
	}
	if len(s.laid) == 0 {
		return -1, ""
	}
	return s.laidAt(x, i)
}

// share returns part, which starts at off in the joined text, with every
// span's bytes in it replaced by the span's marker (once per span and
// part).
func (s *Scrubber) share(part string, off int, sp []span) string {
	var b strings.Builder
	at := 0
	for _, x := range sp {
		a, e := max(x.start, off)-off, min(x.end, off+len(part))-off
		if a >= e {
			continue
		}
		b.WriteString(part[at:a])
		b.WriteString(x.repl)
		at = e
	}
	if at == 0 {
		return part
	}
	b.WriteString(part[at:])
	return b.String()
}

// Parts returns parts, texts a reader sees as one, with the injected
// values their concatenation holds across a boundary replaced: a value
// split across parts has its share in each part replaced by the marker.
// When no value crosses a boundary, parts itself is returned, and values
// inside one part are left to [Scrubber.String]; when one does, every
// value is replaced.
func (s *Scrubber) Parts(parts []string) []string {
	if s == nil || s.r == nil || len(parts) < 2 {
		return parts
	}
	if !s.crosses(parts) {
		return parts // values inside one part are String's
	}
	sp := s.spans(strings.Join(parts, ""))
	out := make([]string, len(parts))
	off := 0
	for i, p := range parts {
		out[i] = s.share(p, off, sp)
		off += len(p)
	}
	return out
}

// Stream returns text, the next chunk of a stream whose chunks so far end
// with tail (already sent), with its share of every injected value in
// tail+text replaced. A chunk that ends with the start of a value (at
// least half of it, counting the tail) has that start replaced too: what
// follows is not known yet, and once the rest comes the start has left.
// So a value streamed in chunks of any size reaches the reader as at most
// the first half of it, less a byte.
//
// Not less than half: holding back every start of a value would answer,
// for an agent whose guess a tool streams back, whether the guess starts a
// secret, and a secret would be found a byte at a time once its first
// bytes were. A guess must hold half of the value to be answered (with a
// random value of 16 bytes, 62^8 guesses), and the half that may leave
// in a stream leaves the other half to be guessed whole. A chunk with
// nothing to replace is returned as it is.
func (s *Scrubber) Stream(tail, text string) string {
	if s == nil || s.r == nil || text == "" {
		return text
	}
	return s.share(text, len(tail), s.streamSpans(tail, text))
}

// streamSpans returns the spans [Scrubber.Stream] replaces, in tail+text
// offsets: every value in it and an open end.
func (s *Scrubber) streamSpans(tail, text string) []span {
	joined := tail + text
	sp := s.spans(joined)
	end := 0
	if len(sp) > 0 {
		end = sp[len(sp)-1].end
	}
	if k, repl := s.openEnd(joined, end); k > 0 {
		sp = append(sp, span{len(joined) - k, len(joined), repl})
	}
	return sp
}

// Mark is what [Scrubber.StreamMarks] replaces: the bytes [Start, End) of
// a text, by Marker.
type Mark struct {
	Start, End int
	Marker     string
}

// StreamMarks returns where [Scrubber.Stream] replaces text's share of
// injected values, in tail+text offsets, for a caller that merges them
// with other redactions of the same text (the sending middleware, with
// the DLP scanner's, found in the text as the tool wrote it). Only the
// marks that reach into text are returned; nil when there is none.
func (s *Scrubber) StreamMarks(tail, text string) []Mark {
	if s == nil || s.r == nil || text == "" {
		return nil
	}
	var out []Mark
	for _, x := range s.streamSpans(tail, text) {
		if x.end > len(tail) {
			out = append(out, Mark{Start: x.start, End: x.end, Marker: x.repl})
		}
	}
	return out
}

// Reach returns the length of the longest value or encoded form s
// scrubs, 0 when none: a stream whose kept end is shorter than that, less
// a byte, loses the start of such a value, and its rest is no longer
// known to be one.
func (s *Scrubber) Reach() int {
	if s == nil || len(s.needles) == 0 {
		return 0
	}
	return len(s.needles[0].needle) // sorted longest first
}

// openEnd returns the length of the longest end of x after from that is a
// proper start of a needle, at least half of it and minEncoded bytes long,
// and that needle's marker; 0 when there is none. A start written with
// layout inside it or after it (a line of wrapped base64 and its line
// break) counts by the needle bytes it holds.
func (s *Scrubber) openEnd(x string, from int) (int, string) {
	longest := len(s.needles[0].needle) // needles are sorted longest first
	got, repl := 0, ""
	for start := max(from, len(x)-longest+1, 0); start <= len(x)-minEncoded; start++ {
		rest := x[start:]
		for _, k := range s.first[x[start]] {
			if n := s.needles[k].needle; len(n) > len(rest) && 2*len(rest) >= len(n) && strings.HasPrefix(n, rest) {
				got, repl = len(rest), s.needles[k].repl
				break
			}
		}
		if got > 0 {
			break
		}
	}
	if len(s.laid) == 0 {
		return got, repl
	}
	// With layout: from where the last len(laid[0])-1 bytes that are not
	// layout begin, up to the start found above.
	lo, n, bound := len(x), 0, maxUnit*(len(s.laid[0].needle)-1) // a byte may take maxUnit (an escape)
	if len(x)-from <= bound {
		lo = from // the bound is not reached before from: no need to count
	}
	for lo > from && n < bound {
		lo--
		if !maybeLayout(x, lo) {
			n++
		}
	}
	for start := max(lo, 0); start < len(x)-got; start++ {
		if !s.candidate(x, start) {
			continue // an open end holds half a needle: its first two units at least
		}
		c, _, m := startAt(x, start)
		for r := 0; r < m; r++ {
			for _, k := range s.laidFirst[c[r]] {
				if n := s.laid[k].needle; 2*matchOpen(x, start, n) >= len(n) {
					return len(x) - start, s.laid[k].repl
				}
			}
		}
	}
	return got, repl
}

// crosses reports whether a needle crosses a boundary between parts: it
// looks only at the bytes around each boundary, as far as the longest
// needle reaches, so that parts without one cost no join and no full scan.
func (s *Scrubber) crosses(parts []string) bool {
	reach := len(s.needles[0].needle) - 1 // sorted longest first
	for i := 1; i < len(parts); i++ {
		// Up to reach bytes on each side, from as many parts as it takes
		// (an empty or short part between two others).
		before := parts[i-1][len(parts[i-1])-min(reach, len(parts[i-1])):]
		for j := i - 2; j >= 0 && len(before) < reach; j-- {
			p := parts[j]
			before = p[len(p)-min(reach-len(before), len(p)):] + before
		}
		after := parts[i][:min(reach, len(parts[i]))]
		for j := i + 1; j < len(parts) && len(after) < reach; j++ {
			after += parts[j][:min(reach-len(after), len(parts[j]))]
		}
		for start := 0; start < len(before); start++ {
			head := before[start:]
			for _, k := range s.first[head[0]] {
				n := s.needles[k].needle
				if len(n) > len(head) && strings.HasPrefix(n, head) && strings.HasPrefix(after, n[len(head):]) {
					return true
				}
			}
		}
	}
	return s.laidCrosses(parts)
}

// laidCrosses reports whether a needle written with layout crosses a
// boundary between parts (a line of wrapped base64 per content item): it
// searches the bytes around each boundary, on each side as far as it takes
// to hold as many bytes that are not layout as the longest needle has
// (however much layout there is between them).
func (s *Scrubber) laidCrosses(parts []string) bool {
	if len(s.laid) == 0 {
		return false
	}
	reach := maxUnit * len(s.laid[0].needle) // sorted longest first; a byte may take maxUnit (an escape)
	for i := 1; i < len(parts); i++ {
		var before, after string
		need := reach
		for j := i - 1; j >= 0 && need > 0; j-- {
			p := parts[j]
			k := len(p)
			for k > 0 && need > 0 {
				k--
				if !maybeLayout(p, k) {
					need--
				}
			}
			before = p[k:] + before
		}
		need = reach
		for j := i; j < len(parts) && need > 0; j++ {
			p := parts[j]
			k := 0
			for k < len(p) && need > 0 {
				if !maybeLayout(p, k) {
					need--
				}
				k++
			}
			after += p[:k]
		}
		for _, x := range s.spans(before + after) {
			if x.start < len(before) && x.end > len(before) {
				return true
			}
		}
	}
	return false
}
