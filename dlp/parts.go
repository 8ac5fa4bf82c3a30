package dlp

import "strings"

// RedactParts redacts texts that a reader sees as one: the content items of
// one MCP result, the chunks of one message. A secret split across parts
// ("...AKIAZ7Q3" and "MV2KXH4PLW6N...") is found in their concatenation, and
// each part has its share of it replaced by the rule's marker; a secret inside
// one part is found as [Scanner.Redact] finds it. out has one entry per part;
// a part with nothing to redact is returned as it is. Findings are one per
// rule, counting a secret that spans parts once; their ranges are offsets
// into the concatenation.
func (s *Scanner) RedactParts(parts []string) (out []string, findings []Finding) {
	if len(parts) == 0 {
		return nil, nil
	}
	if len(parts) == 1 {
		o, f := s.Redact(parts[0])
		return []string{o}, f
	}
	joined := strings.Join(parts, "")
	sp := s.allSpans(joined)
	off := 0
	for _, p := range parts {
		for _, x := range s.allSpans(p) {
			x.start, x.end = x.start+off, x.end+off
			sp = append(sp, x)
		}
		off += len(p)
	}
	sp = resolve(sp)
	out = append([]string(nil), parts...)
	if len(sp) == 0 {
		return out, nil
	}
	agg := aggregator{s: s}
	agg.add(sp, 0)
	// The spans are sorted and disjoint: each part reads only those from
	// the first that ends after its start (a scan of every span for every
	// part was quadratic: 50,000 parts with a secret each took seconds).
	off, j := 0, 0
	for i, p := range parts {
		for j < len(sp) && sp[j].end <= off {
			j++
		}
		out[i] = s.redactShare(p, off, sp[j:])
		off += len(p)
	}
	return out, agg.list()
}

// redactShare returns part, which starts at off in the concatenation, with
// the bytes of every span (in concatenation offsets) that falls in it
// replaced by the span's marker. sp is sorted by start.
func (s *Scanner) redactShare(part string, off int, sp []span) string {
	var local []span
	for _, x := range sp {
		if x.start >= off+len(part) {
			break
		}
		a, b := max(x.start, off)-off, min(x.end, off+len(part))-off
		if a < b {
			local = append(local, span{start: a, end: b, rule: x.rule})
		}
	}
	if len(local) == 0 {
		return part
	}
	return string(appendRedacted(make([]byte, 0, len(part)), s, part, local))
}

// allSpans returns the spans of a text of any length, in text offsets:
// whole when it fits a chunk, else chunk by chunk as [Scanner.Redact] scans.
func (s *Scanner) allSpans(text string) []span {
	if len(text) <= s.opt.ChunkSize {
		return s.spans(text, s.opt.EncodingDepth)
	}
	var out []span
	for pos := 0; ; {
		rest := text[pos:]
		final := len(rest) <= s.opt.ChunkSize
		if !final {
			rest = rest[:s.opt.ChunkSize]
		}
		cut, sp := s.round(rest, final)
		for _, x := range sp {
			x.start, x.end = x.start+pos, x.end+pos
			out = append(out, x)
		}
		pos += cut
		if final {
			return out
		}
	}
}
