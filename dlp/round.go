package dlp

// round scans one chunk of a longer input. When final is false it returns
// cut, the number of leading bytes that are settled (and the spans within
// them); the caller emits text[:cut] and continues with the input from cut.
//
// The cut lies at least Overlap bytes before the end of the chunk, so a secret
// of up to Overlap bytes that starts before the end is seen whole in this round
// or the next. It is moved back to the start of the whitespace-delimited token
// it falls in (so the next chunk starts where a word starts and an encoded run
// is not split), and before any span that crosses it. A token that fills the
// whole chunk is cut at a multiple of 4 bytes from its start, which keeps
// base64 and hex aligned.
func (s *Scanner) round(text string, final bool) (int, []span) {
	sp := s.spans(text, s.opt.EncodingDepth)
	if final {
		return len(text), sp
	}
	cut := len(text) - s.opt.Overlap
	t := cut
	for t > 0 && !isSpace(text[t-1]) {
		t--
	}
	if t > 0 {
		cut = t
	} else {
		cut &^= 3
	}
	for i, x := range sp {
		if x.end <= cut {
			continue
		}
		if x.start < cut {
			cut = x.start
		}
		if cut == 0 {
			// A span from the very start crosses the cut: settle it whole.
			cut = x.end
			i++
		}
		return cut, sp[:i]
	}
	return cut, sp
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v'
}
