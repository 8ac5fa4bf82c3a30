package dlp

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A lit is a byte string that a match must contain. When fold is set, s is
// lower case and any ASCII case variant of it counts; otherwise the bytes must
// appear exactly as written.
type lit struct {
	s    string
	fold bool
}

// litInfo describes a regex node: exact lists every string the node can match
// (nil when unknown or too many); req lists strings one of which every match
// contains (nil when none could be derived). All strings in req are non-empty.
type litInfo struct {
	exact []lit
	req   []lit
	// lo and hi bound the byte offset, from the start of the node's match, at
	// which the req literal starts (exact literals start at 0).
	lo, hi int
}

const (
	maxExact     = 64  // largest exact set kept while expanding
	maxReq       = 256 // largest required set kept for an alternation
	maxClassLits = 16  // largest character class expanded into literals
	unbounded    = 1 << 30
)

// requiredLiterals returns a set of strings such that every match of re
// contains at least one of them, starting between lo and hi bytes after the
// start of the match (hi may be unbounded), or nil when no such set is known.
func requiredLiterals(re *syntax.Regexp) (lits []lit, lo, hi int) {
	r, lo, hi := reqOf(analyze(re))
	if r == nil {
		return nil, 0, 0
	}
	return dedupe(r), lo, hi
}

func reqOf(in litInfo) ([]lit, int, int) {
	if in.exact != nil && !hasEmpty(in.exact) {
		return in.exact, 0, 0
	}
	return in.req, in.lo, in.hi
}

func reqInfo(in litInfo) litInfo {
	r, lo, hi := reqOf(in)
	return litInfo{req: r, lo: lo, hi: hi}
}

func hasEmpty(ls []lit) bool {
	for _, l := range ls {
		if l.s == "" {
			return true
		}
	}
	return len(ls) == 0
}

func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		parts := make([]litInfo, len(re.Rune))
		lens := make([][2]int, len(re.Rune))
		for i, r := range re.Rune {
			parts[i] = litInfo{exact: runeLits(r, re.Flags&syntax.FoldCase != 0)}
			lens[i] = [2]int{unbounded, 0}
			for _, l := range parts[i].exact {
				lens[i] = [2]int{min(lens[i][0], len(l.s)), max(lens[i][1], len(l.s))}
			}
			if parts[i].exact == nil {
				lens[i] = [2]int{1, utf8.UTFMax}
			}
		}
		return concatInfo(parts, lens)
	case syntax.OpCharClass:
		return litInfo{exact: classLits(re.Rune)}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []lit{{}}}
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpQuest:
		c := analyze(re.Sub[0])
		if c.exact != nil && len(c.exact) < maxExact {
			return litInfo{exact: append(slices.Clone(c.exact), lit{})}
		}
		return litInfo{}
	case syntax.OpPlus:
		return reqInfo(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min == 0 {
			return litInfo{}
		}
		c := analyze(re.Sub[0])
		if re.Min == re.Max && c.exact != nil && re.Min <= 8 {
			parts := make([]litInfo, re.Min)
			lens := make([][2]int, re.Min)
			short, long := lengths(re.Sub[0])
			for i := range parts {
				parts[i], lens[i] = c, [2]int{short, long}
			}
			return concatInfo(parts, lens)
		}
		return reqInfo(c)
	case syntax.OpConcat:
		parts := make([]litInfo, len(re.Sub))
		lens := make([][2]int, len(re.Sub))
		for i, s := range re.Sub {
			parts[i] = analyze(s)
			short, long := lengths(s)
			lens[i] = [2]int{short, long}
		}
		return concatInfo(parts, lens)
	case syntax.OpAlternate:
		var exact, req []lit
		exactOK, reqOK := true, true
		lo, hi := unbounded, 0
		for _, s := range re.Sub {
			c := analyze(s)
			if exactOK && c.exact != nil && len(exact)+len(c.exact) <= maxExact {
				exact = append(exact, c.exact...)
			} else {
				exactOK = false
			}
			if r, l, h := reqOf(c); reqOK && r != nil && len(req)+len(r) <= maxReq {
				req = append(req, r...)
				lo, hi = min(lo, l), max(hi, h)
			} else {
				reqOK = false
			}
		}
		var out litInfo
		if exactOK {
			out.exact = dedupe(exact)
		}
		if reqOK {
			out.req, out.lo, out.hi = dedupe(req), lo, hi
		}
		return out
	}
	// OpAnyChar, OpAnyCharNotNL, OpStar, OpNoMatch: nothing known.
	return litInfo{}
}

// concatInfo combines the parts of a concatenation (lens holds each part's
// shortest and longest match): runs of parts with exact sets are multiplied
// out while small; the best candidate set wins, with the offsets at which it
// can start.
func concatInfo(parts []litInfo, lens [][2]int) litInfo {
	cur := []lit{{}}
	var cands []litInfo
	allExact := true
	plo, phi := 0, 0 // bounds of the offset of the current part
	rlo, rhi := 0, 0 // bounds of the offset of the current run
	for i, p := range parts {
		if p.exact != nil && len(cur)*len(p.exact) <= maxExact {
			cur = product(cur, p.exact)
		} else {
			if !hasEmpty(cur) {
				cands = append(cands, litInfo{req: cur, lo: rlo, hi: rhi})
			}
			allExact = false
			cur = []lit{{}}
			rlo, rhi = plo, phi
			if p.exact != nil {
				cur = p.exact
			} else {
				rlo, rhi = min(plo+lens[i][0], unbounded), min(phi+lens[i][1], unbounded)
				if p.req != nil {
					cands = append(cands, litInfo{req: p.req, lo: min(plo+p.lo, unbounded), hi: min(phi+p.hi, unbounded)})
				}
			}
		}
		plo, phi = min(plo+lens[i][0], unbounded), min(phi+lens[i][1], unbounded)
	}
	if allExact {
		return litInfo{exact: cur}
	}
	if !hasEmpty(cur) {
		cands = append(cands, litInfo{req: cur, lo: rlo, hi: rhi})
	}
	var best litInfo
	bestScore := -1
	for _, c := range cands {
		if s := score(c.req); s > bestScore {
			best, bestScore = c, s
		}
	}
	return best
}

// score ranks candidate sets: longer shortest string first, then exact case,
// then fewer strings.
func score(ls []lit) int {
	short, exact := unbounded, 1
	for _, l := range ls {
		short = min(short, len(l.s))
		if l.fold {
			exact = 0
		}
	}
	return min(short, 16)*1000 + exact*500 - len(ls)
}

func product(a, b []lit) []lit {
	out := make([]lit, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			s := x.s + y.s
			fold := x.fold || y.fold
			if fold {
				s = lowerASCII(s)
			}
			out = append(out, lit{s: s, fold: fold && s != ""})
		}
	}
	return out
}

// runeLits lists the byte strings that rune r (with case folding when fold)
// matches.
func runeLits(r rune, fold bool) []lit {
	if r == utf8.RuneError {
		return nil // the regex also matches any invalid byte here
	}
	if !fold {
		return []lit{{s: string(r)}}
	}
	runes := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		runes = append(runes, f)
	}
	return runeSetLits(runes)
}

// classLits lists the byte strings a small character class matches, or nil.
func classLits(ranges []rune) []lit {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > 2*maxClassLits {
			return nil
		}
	}
	var runes []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			runes = append(runes, r)
		}
	}
	out := runeSetLits(runes)
	if len(out) > maxClassLits || len(out) == 0 {
		return nil
	}
	return out
}

// runeSetLits turns a set of runes into literals, merging the two ASCII
// cases of a letter into one case-insensitive literal.
func runeSetLits(runes []rune) []lit {
	has := make(map[rune]bool, len(runes))
	for _, r := range runes {
		has[r] = true
	}
	var out []lit
	for _, r := range runes {
		switch {
		case r >= 'a' && r <= 'z' && has[r-32]:
			out = append(out, lit{s: string(r), fold: true})
		case r >= 'A' && r <= 'Z' && has[r+32]:
			// merged into the lower-case entry
		case r == utf8.RuneError:
			// the class also matches invalid UTF-8 bytes: give up
			return nil
		default:
			out = append(out, lit{s: string(r)})
		}
	}
	return out
}

func dedupe(ls []lit) []lit {
	seen := make(map[lit]bool, len(ls))
	out := ls[:0:0]
	for _, l := range ls {
		if l.fold || !seen[lit{s: lowerASCII(l.s), fold: true}] {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	// an exact literal is redundant next to its case-insensitive twin
	return slices.DeleteFunc(out, func(l lit) bool {
		return !l.fold && seen[lit{s: lowerASCII(l.s), fold: true}]
	})
}

// lowerASCII lower-cases ASCII letters byte by byte and leaves every other
// byte, valid UTF-8 or not, as it is.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// lengths returns the shortest and longest match of re in bytes; long is
// unbounded when re has no upper bound.
func lengths(re *syntax.Regexp) (short, long int) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 3
			}
			short += n
			long += n
			if re.Flags&syntax.FoldCase != 0 {
				long += 2 // a folded variant may be longer (k vs U+212A)
			}
		}
		return short, long
	case syntax.OpCharClass:
		return 1, maxRuneLen(re.Rune)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, utf8.UTFMax
	case syntax.OpCapture:
		return lengths(re.Sub[0])
	case syntax.OpStar:
		return 0, unbounded
	case syntax.OpPlus:
		s, _ := lengths(re.Sub[0])
		return s, unbounded
	case syntax.OpQuest:
		_, l := lengths(re.Sub[0])
		return 0, l
	case syntax.OpRepeat:
		s, l := lengths(re.Sub[0])
		short = min(s*re.Min, unbounded)
		if re.Max < 0 || l >= unbounded {
			return short, unbounded
		}
		return short, min(l*re.Max, unbounded)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			s, l := lengths(sub)
			short = min(short+s, unbounded)
			long = min(long+l, unbounded)
		}
		return short, long
	case syntax.OpAlternate:
		short = unbounded
		for _, sub := range re.Sub {
			s, l := lengths(sub)
			short = min(short, s)
			long = max(long, l)
		}
		return short, long
	case syntax.OpNoMatch:
		return 1, 1
	}
	return 0, 0 // empty-width assertions and empty match
}

func maxRuneLen(ranges []rune) int {
	if len(ranges) == 0 {
		return 0
	}
	hi := ranges[len(ranges)-1]
	switch {
	case hi < 0x80:
		return 1
	case hi < 0x800:
		return 2
	case hi < 0x10000:
		return 3
	}
	return 4
}

// mustLiterals returns the case-sensitive literals that every match of re
// contains: the literal terms of its top-level concatenation (through
// capture groups and repetitions of at least one). A text without one of
// them holds no match, so anchored attempts need not start.
func mustLiterals(re *syntax.Regexp) []string {
	var out []string
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture, syntax.OpPlus:
			walk(re.Sub[0])
		case syntax.OpRepeat:
			if re.Min >= 1 {
				walk(re.Sub[0])
			}
		case syntax.OpConcat:
			for _, s := range re.Sub {
				walk(s)
			}
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase == 0 {
				out = appendRuns(out, re.Rune)
			}
		}
	}
	walk(re)
	return out
}

// appendRuns appends the runs of rs between U+FFFD runes: a U+FFFD in a
// regex also matches any invalid byte, so the text need not hold its bytes.
func appendRuns(out []string, rs []rune) []string {
	start := 0
	for i := 0; i <= len(rs); i++ {
		if i == len(rs) || rs[i] == utf8.RuneError {
			if i > start {
				out = append(out, string(rs[start:i]))
			}
			start = i + 1
		}
	}
	return out
}
