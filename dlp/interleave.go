package dlp

// Interleaved scanning. The scan loop is bound by the latency of its one
// dependent load: the next state needs the state before. Four streams over
// four parts of a text are four independent chains, and a loop that steps
// them together lets the CPU overlap their loads.
//
// Why the hits are the same. Started at the root at offset p, the automaton
// after byte i is in the state of the longest suffix of text[p:i+1] that
// begins some pattern, and that state's outputs are the patterns that are
// suffixes of it: every pattern that is a suffix of text[p:i+1]. A pattern
// ending at i+1 is at most maxLen bytes long, so once i+1-maxLen >= p these
// are exactly the patterns the whole-text scan reports at i+1, and in the same
// order (distinct patterns, listed longest first: a state's own pattern, then
// its failure state's outputs). So each stream starts maxLen-1 bytes before
// the part of the text it answers for, and reports only the occurrences that
// end inside its part: each occurrence once, by the stream whose part holds
// its end.
//
// Order. The parts follow each other, so the hits are in order when each
// stream's come after the previous stream's. Stream 0 reports at once; the
// others hold back the output states they reach in their part (up to pendMax
// each, then the lockstep stops) and report them after the streams before
// them have finished, before each goes on alone.
//
// Long texts are scanned in blocks of blockLen bytes, one after the other,
// each in four streams: a block full of hits degrades only itself to one
// stream.

const (
	nStreams = 4
	// interleaveFloor is the shortest text scanned in streams; texts must
	// also be 3 times the longest pattern, so that the overlaps stay small.
	interleaveFloor = 128
	blockLen        = 16 << 10
	// pendMax is how many output states a stream holds back.
	pendMax = 16
)

// interleaveMin is the shortest text that scan splits into streams.
func (a *automaton) interleaveMin() int { return max(interleaveFloor, 3*a.maxLen) }

// pending is an output state a stream holds back and the end offset it was
// reached at.
type pending struct {
	s   uint32
	end int
}

// scanInterleaved is scan in blocks of interleaved streams; text is at
// least interleaveMin long.
func (a *automaton) scanInterleaved(text string, hit func(id int32, end int)) {
	bl := max(blockLen, a.interleaveMin())
	lo := 0
	for len(text)-lo >= 2*bl {
		a.scanBlock(text, lo, lo+bl, hit)
		lo += bl
	}
	a.scanBlock(text, lo, len(text), hit)
}

// streams are the streams of one block.
type streams struct {
	from [nStreams + 1]int // stream j reports the ends in (from[j], from[j+1]]
	at   [nStreams]int     // where stream j starts reading
	s    [nStreams]uint32
	pend [nStreams][pendMax]pending
	np   [nStreams]int
}

// scanBlock reports the occurrences that end in (lo, hi], in order;
// hi-lo >= a.interleaveMin().
func (a *automaton) scanBlock(text string, lo, hi int, hit func(id int32, end int)) {
	var q streams
	m := q.split(lo, hi, a.maxLen-1)
	t0, t1, t2, t3 := text[q.at[0]:][:m], text[q.at[1]:][:m], text[q.at[2]:][:m], text[q.at[3]:][:m]
	k := 0
	for k < m {
		k, q.s[0], q.s[1], q.s[2], q.s[3] = a.step4(t0, t1, t2, t3, k, q.s[0], q.s[1], q.s[2], q.s[3])
		if !a.outputs(&q, k, hit) {
			break
		}
	}
	for j := range nStreams {
		for _, p := range q.pend[j][:q.np[j]] {
			a.report(p.s, p.end, hit)
		}
		i, s := q.at[j]+k, q.s[j]
		// A stream stops in its overlap only if another holds back
		// pendMax states first, which the equal overlaps rule out; were it
		// to, the outputs there are the previous stream's and are skipped.
		for i < q.from[j] {
			i, s = a.step(text[:q.from[j]], i, s)
		}
		a.scanFrom(text[:q.from[j+1]], i, s, hit)
	}
}

// split divides (lo, hi] among the streams so that each reads about as many
// bytes, counting the own bytes each reads before its part, and returns the
// number of bytes every stream has (the last one may have a few more).
func (q *streams) split(lo, hi, own int) int {
	o0 := min(own, lo)
	m := (hi - lo + o0 + (nStreams-1)*own) / nStreams
	q.from[0], q.at[0] = lo, lo-o0
	for j := 1; j < nStreams; j++ {
		q.from[j] = q.at[j-1] + m
		q.at[j] = q.from[j] - own
	}
	q.from[nStreams] = hi
	return m
}

// outputs handles the streams in an output state after k lockstep bytes:
// stream 0 reports, the others hold back. It returns false when a stream's
// pending states are full.
func (a *automaton) outputs(q *streams, k int, hit func(id int32, end int)) bool {
	ok := true
	for j, s := range q.s {
		end := q.at[j] + k
		if s < a.outStart || end <= q.from[j] {
			continue
		}
		if j == 0 {
			a.report(s, end, hit)
			continue
		}
		q.pend[j][q.np[j]] = pending{s: s, end: end}
		if q.np[j]++; q.np[j] == pendMax {
			ok = false
		}
	}
	return ok
}

// step4 is step for four streams in lockstep over texts of equal length,
// from offset k until one reaches a state with outputs or the texts end.
func (a *automaton) step4(t0, t1, t2, t3 string, k int, s0, s1, s2, s3 uint32) (int, uint32, uint32, uint32, uint32) {
	next, class, outStart := a.next, &a.class, a.outStart
	t1, t2, t3 = t1[:len(t0)], t2[:len(t0)], t3[:len(t0)]
	for k < len(t0) {
		s0 = next[uint(s0)+uint(class[t0[k]])]
		s1 = next[uint(s1)+uint(class[t1[k]])]
		s2 = next[uint(s2)+uint(class[t2[k]])]
		s3 = next[uint(s3)+uint(class[t3[k]])]
		k++
		if max(s0, s1, s2, s3) >= outStart {
			break
		}
	}
	return k, s0, s1, s2, s3
}
