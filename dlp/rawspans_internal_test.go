package dlp

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// oldRawSpans is rawSpans as it was before it walked only the touched
// rules: every rule in pattern order, tables per scan. The reference for
// TestRawSpansMatchesOld.
func (s *Scanner) oldRawSpans(text string, depth int) []span {
	var (
		fired []int // modeGate: start of the rule's first literal hit, or -1
		wins  [][]window
		cands []span
	)
	// The per-rule tables are as long as the pack; they come from a pool,
	// so that a short text with one literal hit does not allocate them.
	var sc *scanScratch
	newWins := func() [][]window {
		if sc == nil {
			sc = freshScratch(s)
		}
		return sc.wins
	}
	newFired := func() []int {
		if sc == nil {
			sc = freshScratch(s)
		}
		return sc.fired
	}
	if s.ac != nil {
		s.ac.scan(text, func(id int32, end int) {
			for _, ref := range s.refs[id] {
				if ref.exact != "" && text[end-ref.n:end] != ref.exact {
					continue
				}
				r := &s.rules[ref.rule]
				if r.mode == modeAnchor {
					// The match starts lo..hi bytes before the literal.
					start := end - ref.n
					w := window{lo: max(0, start-r.hi), hi: start - r.lo}
					if w.hi < 0 {
						continue
					}
					if wins == nil {
						wins = newWins()
					}
					wins[ref.rule] = append(wins[ref.rule], w)
					continue
				}
				if r.mode == modeGate {
					if fired == nil {
						fired = newFired()
					}
					if start := end - ref.n; fired[ref.rule] < 0 || start < fired[ref.rule] {
						fired[ref.rule] = start // the first hit's start
					}
					continue
				}
				// Every match contains the literal text[end-n:end] and is at
				// most maxLen long, so it lies in [end-maxLen, end-n+maxLen].
				// One byte of margin on each side keeps the context that \b
				// and friends look at.
				w := window{lo: max(0, end-r.maxLen-1), hi: min(len(text), end-ref.n+r.maxLen+1)}
				if wins == nil {
					wins = newWins()
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
		case r.mode == modeAlways:
			cands = s.matchAll(cands, text, int32(i), 0)
		case r.mode == modeGate && fired != nil && fired[i] >= 0:
			if lo := fired[i] - r.hi - 1; r.fromHit && lo > 0 {
				cands = s.matchWindows(cands, text, int32(i), []window{{lo: lo, hi: len(text)}})
			} else {
				cands = s.matchAll(cands, text, int32(i), 0)
			}
		case r.mode == modeWindow && wins != nil && len(wins[i]) > 0:
			cands = s.matchWindows(cands, text, int32(i), wins[i])
		case r.mode == modeAnchor && wins != nil && len(wins[i]) > 0:
			cands = s.matchAnchored(cands, text, int32(i), wins[i], new(countingReader))
		}
	}
	if s.opt.DetectEncoding && depth > 0 {
		cands = s.encoded(cands, text, depth)
	}
	return resolve(cands)
}

// freshScratch is a scratch of s's size from outside the pool.
func freshScratch(s *Scanner) *scanScratch {
	sc := &scanScratch{wins: make([][]window, len(s.rules)), fired: make([]int, len(s.rules))}
	for i := range sc.fired {
		sc.fired[i] = -1
	}
	return sc
}

// rawSpans agrees with oldRawSpans, span for span (rule and encoding
// included), on documents of built-in positives and negatives, encoded
// secrets and noise, for the built-in pack (encodings on and off) and for a
// pack with a rule without literals and a keyword-gated rule.
func TestRawSpansMatchesOld(t *testing.T) {
	var pieces []string
	for _, r := range BuiltinRules() {
		pieces = append(pieces, r.Positives...)
		pieces = append(pieces, r.Negatives...)
	}
	for _, p := range pieces[:40] {
		pieces = append(pieces, base64.StdEncoding.EncodeToString([]byte(p)))
	}
	pieces = append(pieces, "ticket ABC-123", "123-45-6789", "The quick brown fox ", "\n", "%41", " ", "\n")
	odd := append([]Pattern{
		{Name: "nolit", Regex: `[0-9]{3}-[0-9]{2}-[0-9]{4}`},
		{Name: "keyworded", Regex: `[A-Z]{3}-[0-9]{3}`, Keywords: []string{"ticket"}},
	}, Builtin()...)
	var scanners []*Scanner
	for _, c := range []struct {
		pats []Pattern
		enc  bool
	}{{Builtin(), false}, {Builtin(), true}, {odd, true}} {
		s, err := New(c.pats, &Options{DetectEncoding: c.enc})
		if err != nil {
			t.Fatal(err)
		}
		scanners = append(scanners, s)
	}
	r := rand.New(rand.NewPCG(13, 3))
	found := 0
	for i := 0; i < 600; i++ {
		var b strings.Builder
		for n := r.IntN(12); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
			b.WriteString([]string{"", " ", "\n", "x"}[r.IntN(4)])
		}
		text := b.String()
		for _, s := range scanners {
			want := s.oldRawSpans(text, s.opt.EncodingDepth)
			got := s.rawSpans(text, s.opt.EncodingDepth)
			if !slices.Equal(got, want) {
				t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
			}
			found += len(want)
		}
	}
	if found < 1000 {
		t.Fatalf("only %d spans compared", found)
	}
}
