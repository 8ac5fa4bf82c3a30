package dlp

// round scans one chunk of a longer input. When final is false it returns
// cut, the number of leading bytes that are settled (and the spans within
// them); the caller emits text[:cut] and continues with the input from cut.
//
// The cut lies at least Overlap bytes before the end of the chunk, so a secret
// of up to Overlap bytes that starts before the end is seen whole in this round
// or the next. It is moved back to the start of the whitespace-delimited token
// it falls in (so the next chunk starts where a word starts and an encoded run
// is not split), and before any span that crosses it, and before the
// context of its rule's match. A token that fills the
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
	// The spans are sorted and disjoint: those that end after the cut are
	// the last ones. The next round starts where the earliest of their
	// rules' matches starts, with the context that makes a secret one: cut
	// at the secret itself, a Secret's entries went on without "kind:
	// Secret ... data:" before them and out in the clear (red team rts).
	i := len(sp)
	for i > 0 && sp[i-1].end > cut {
		i--
		cut = min(cut, sp[i].start-sp[i].lead)
	}
	if cut <= 0 && i < len(sp) {
		// A span from the very start crosses the cut: settle it whole.
		cut = sp[i].end
		i++
	}
	return cut, sp[:i]
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v'
}
