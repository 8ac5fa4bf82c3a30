package dlp

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// Scanner finds and redacts secrets. It is compiled once by [New] and is
// immutable: safe for concurrent use by any number of goroutines.
type Scanner struct {
	rules  []rule
	ac     *automaton // nil when no rule has literals
	refs   [][]litRef // per automaton pattern: the rules it feeds
	always []int32    // the rules without literals, which run on every text
	byName map[string]int32
	opt    Options
	pool   sync.Pool // *scanScratch
}

type mode uint8

const (
	modeAlways mode = iota // no literal known: run over every text
	modeGate               // literals known but length unbounded, or Keywords: run over the whole text on a hit
	modeWindow             // literals and a bounded length: run only around hits
	modeAnchor             // literals at a bounded offset: try anchored matches at the few possible starts
)

// maxStarts is the widest spread of literal offsets for which a rule is
// matched anchored at each possible start rather than over a window.
const maxStarts = 64

type rule struct {
	name       string
	re         *regexp.Regexp
	native     nativeFind                      // the regex's reader (k8snative.go), or nil
	veto       func(text string, m []int) bool // drops a match its context says is none (k8skind.go), or nil
	secret     []int                           // submatch indices of groups named secret*
	setting    int                             // submatch index of the group named secret0, or 0
	minEntropy float64
	exclude    *regexp.Regexp // drops a match whose redacted part it matches
	mode       mode
	maxLen     int // longest match in bytes (unbounded when none)
	// modeAnchor: the literal starts lo to hi bytes after the match start;
	// anch holds at0, ^(regex), and atN, ^(?s:.)(regex), which reads one
	// byte of context before the start; they are compiled on first use, so
	// that building a scanner from many patterns compiles each regex once.
	lo, hi int
	anch   *anchors
	musts  []string // modeAnchor: literals every match holds (mustLiterals)
	// fromHit (modeGate from regex literals): matches start at most hi bytes
	// before the literal, so the rule runs over the text from the first hit.
	fromHit bool
}

// anchors are a rule's anchored forms, compiled once, on first use.
type anchors struct {
	src      string
	once     sync.Once
	at0, atN *regexp.Regexp
	first    *firstBytes // the bytes a match can start with; nil: any
	err      error
}

func (a *anchors) get() (at0, atN *regexp.Regexp, err error) {
	a.once.Do(func() {
		a.first = newFirstBytes(a.src)
		if a.at0, a.err = regexp.Compile(`^(` + a.src + `)`); a.err == nil {
			a.atN, a.err = regexp.Compile(`^(?s:.)(` + a.src + `)`)
		}
	})
	return a.at0, a.atN, a.err
}

// litRef ties an automaton pattern to a rule. exact, when set, is the
// case-sensitive form that the text must hold (the automaton ignores case).
type litRef struct {
	rule  int32
	n     int
	exact string
}

// New compiles patterns into a Scanner. It rejects, with a [*PatternError]
// naming the rule: an empty or malformed name, a duplicate name, an empty,
// over-long or invalid regex, a regex that can match the empty string, an
// empty keyword and an out-of-range MinEntropy. opts may be nil.
func New(patterns []Pattern, opts *Options) (*Scanner, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Scanner{opt: o, byName: make(map[string]int32, len(patterns))}
	litIDs := map[string]int32{}
	var pats []string
	builtinOnly := true
	for i, p := range patterns {
		r, lits, builtin, err := compileShared(p, o)
		builtinOnly = builtinOnly && builtin
		if _, dup := s.byName[p.Name]; err == nil && dup {
			err = ErrDuplicateName
		}
		if err != nil {
			return nil, &PatternError{Index: i, Name: p.Name, Err: err}
		}
		idx := int32(len(s.rules))
		s.byName[p.Name] = idx
		s.rules = append(s.rules, r)
		if r.mode == modeAlways {
			s.always = append(s.always, idx)
			continue
		}
		for _, l := range lits {
			key := lowerASCII(l.s)
			id, ok := litIDs[key]
			if !ok {
				id = int32(len(pats))
				litIDs[key] = id
				pats = append(pats, key)
				s.refs = append(s.refs, nil)
			}
			ref := litRef{rule: idx, n: len(l.s)}
			if !l.fold {
				ref.exact = l.s
			}
			if !slices.Contains(s.refs[id], ref) {
				s.refs[id] = append(s.refs[id], ref)
			}
		}
	}
	if len(pats) > 0 {
		s.ac = sharedAutomaton(pats, builtinOnly)
	}
	return s, nil
}

func compileRule(p Pattern, o Options) (rule, []lit, error) {
	r := rule{name: p.Name, minEntropy: p.MinEntropy}
	if err := validName(p.Name); err != nil {
		return r, nil, err
	}
	if p.Regex == "" {
		return r, nil, ErrEmptyRegex
	}
	if len(p.Regex) > o.MaxPatternLength {
		return r, nil, fmt.Errorf("%w: %d bytes, the limit is %d (Options.MaxPatternLength)",
			ErrPatternTooLong, len(p.Regex), o.MaxPatternLength)
	}
	if err := validEntropy(p.MinEntropy); err != nil {
		return r, nil, fmt.Errorf("%w: %v", err, p.MinEntropy)
	}
	if p.Exclude != "" {
		if len(p.Exclude) > o.MaxPatternLength {
			return r, nil, fmt.Errorf("%w: Exclude is %d bytes, the limit is %d (Options.MaxPatternLength)",
				ErrPatternTooLong, len(p.Exclude), o.MaxPatternLength)
		}
		ex, err := regexp.Compile(p.Exclude)
		if err != nil {
			return r, nil, fmt.Errorf("%w: Exclude: %w", ErrBadRegex, err)
		}
		r.exclude = ex
	}
	parsed, err := syntax.Parse(p.Regex, syntax.Perl)
	if err != nil {
		return r, nil, fmt.Errorf("%w: %w", ErrBadRegex, err)
	}
	re, err := regexp.Compile(p.Regex)
	if err != nil {
		return r, nil, fmt.Errorf("%w: %w", ErrBadRegex, err)
	}
	short, long := lengths(parsed)
	if short == 0 || re.MatchString("") {
		return r, nil, ErrEmptyMatch
	}
	r.re = re
	r.native, r.veto = natives[p.Regex], vetoes[p.Regex]
	for i, name := range re.SubexpNames() {
		if strings.HasPrefix(name, "secret") {
			r.secret = append(r.secret, i)
		}
		if name == settingGroup {
			r.setting = i
		}
	}
	if len(p.Keywords) > 0 {
		lits := make([]lit, len(p.Keywords))
		for i, k := range p.Keywords {
			if k == "" || len(k) > maxKeywordLen {
				return r, nil, fmt.Errorf("%w: keyword %d is empty or longer than %d bytes", ErrBadKeyword, i, maxKeywordLen)
			}
			lits[i] = lit{s: lowerASCII(k), fold: true}
		}
		r.mode = modeGate
		return r, lits, nil
	}
	r.maxLen = long
	lits, lo, hi := requiredLiterals(parsed)
	switch {
	case lits == nil:
		r.mode = modeAlways
	case hi-lo < maxStarts && long < unbounded && !strings.Contains(p.Regex, `\Q`):
		// The wrapped forms of a valid regex compile, with one more group,
		// unless a \Q...\E quote swallows the closing parenthesis: such
		// rules use windows.
		r.mode, r.lo, r.hi, r.anch = modeAnchor, lo, hi, &anchors{src: p.Regex}
		r.musts = mustLiterals(parsed)
	case long <= o.ChunkSize/4:
		r.mode = modeWindow
	default:
		r.mode = modeGate
		// Every match starts at most hi bytes before a literal hit: the
		// rule runs from the first hit on, not over the whole text.
		r.lo, r.hi, r.fromHit = lo, hi, hi < unbounded
	}
	return r, lits, nil
}

// prefixFree drops every literal that starts with another literal of the set
// (a match holding "api_key\"" holds "api_key" at the same offset): fewer
// automaton patterns, and not one hit more. An exact-case literal never
// stands in for a case-insensitive one.
func prefixFree(lits []lit) []lit {
	out := lits[:0:0]
	for i, b := range lits {
		redundant := false
		for j, a := range lits {
			if i == j || len(a.s) >= len(b.s) {
				continue
			}
			if a.fold && strings.HasPrefix(lowerASCII(b.s), a.s) || !a.fold && !b.fold && strings.HasPrefix(b.s, a.s) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, b)
		}
	}
	return out
}

// Rules returns the rule names in pattern order.
func (s *Scanner) Rules() []string {
	out := make([]string, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.name
	}
	return out
}

// Redact returns text with every secret replaced by "[REDACTED:<name>]" and
// one [Finding] per rule that fired, in pattern order. Texts up to
// Options.ChunkSize bytes are scanned whole; longer ones in overlapping chunks
// (see [Options]). When nothing is found, text is returned as is and the
// findings are nil.
func (s *Scanner) Redact(text string) (string, []Finding) {
	agg := aggregator{s: s}
	if len(text) <= s.opt.ChunkSize {
		sp := s.spans(text, s.opt.EncodingDepth)
		if len(sp) == 0 {
			return text, nil
		}
		agg.add(sp, 0)
		return string(appendRedacted(make([]byte, 0, len(text)), s, text, sp)), agg.list()
	}
	var out []byte
	for pos := 0; ; {
		rest := text[pos:]
		final := len(rest) <= s.opt.ChunkSize
		if !final {
			rest = rest[:s.opt.ChunkSize]
		}
		cut, sp := s.round(rest, final)
		agg.add(sp, pos)
		if out == nil && len(sp) > 0 {
			out = append(make([]byte, 0, len(text)), text[:pos]...)
		}
		if out != nil {
			out = appendRedacted(out, s, rest[:cut], sp)
		}
		pos += cut
		if final {
			break
		}
	}
	if out == nil {
		return text, nil
	}
	return string(out), agg.list()
}

// appendRedacted appends text to dst with spans (sorted, disjoint, within
// text) replaced.
func appendRedacted(dst []byte, s *Scanner, text string, sp []span) []byte {
	last := 0
	for _, x := range sp {
		dst = append(dst, text[last:x.start]...)
		dst = append(dst, "[REDACTED:"...)
		dst = append(dst, s.rules[x.rule].name...)
		dst = append(dst, ']')
		last = x.end
	}
	return append(dst, text[last:]...)
}

// aggregator sums spans and findings into one finding per rule.
type aggregator struct {
	s *Scanner
	f []Finding // indexed by rule; nil until the first span
}

func (a *aggregator) init() {
	if a.f == nil {
		a.f = make([]Finding, len(a.s.rules))
		for i, r := range a.s.rules {
			a.f[i].Rule = r.name
		}
	}
}

func (a *aggregator) add(sp []span, base int) {
	if len(sp) == 0 {
		return
	}
	a.init()
	for _, x := range sp {
		f := &a.f[x.rule]
		f.Count++
		if len(f.Ranges) < MaxRanges {
			f.Ranges = append(f.Ranges, Range{Start: base + x.start, End: base + x.end, Encoding: x.enc.String()})
		}
	}
}

// merge adds a finding of this scanner's rules.
func (a *aggregator) merge(g Finding) {
	a.init()
	f := &a.f[a.s.byName[g.Rule]]
	f.Count += g.Count
	n := min(len(g.Ranges), MaxRanges-len(f.Ranges))
	f.Ranges = append(f.Ranges, g.Ranges[:max(n, 0)]...)
}

// list returns the findings with a non-zero count, in pattern order.
func (a *aggregator) list() []Finding {
	var out []Finding
	for _, f := range a.f {
		if f.Count > 0 {
			out = append(out, f)
		}
	}
	return out
}
