package dlp

import (
	"slices"
	"strings"
	"sync"
)

// Compiling the built-in rules' regexes and building the automaton of their
// literals was most of New's time (about 100 ms, and 40% of the root
// package's test time, which builds a Guard per test). A compiled rule
// depends only on its Pattern and on the two options compileRule reads,
// and a rule and an automaton are never changed once built (a rule's
// anchored forms compile once, under its sync.Once), so scanners share
// them:
//   - the rule of a pattern equal to a built-in one, field by field, under
//     the same MaxPatternLength and ChunkSize; a pattern that differs in
//     anything (a renamed rule, another Exclude, Keywords or MinEntropy)
//     is compiled on its own, as before;
//   - the automaton of a list of literals built before.
//
// Only built-in patterns are kept, so the rules kept are bounded by the
// built-in set times the option pairs a process uses, and both caches stop
// taking entries at a cap (what is not kept is built as before). Errors are
// never kept: a pattern that fails is compiled again, and fails again.

// maxCachedRules caps the shared rules: the built-in set under a few dozen
// option pairs.
const maxCachedRules = 8192

// maxCachedAutomata caps the shared automata: a process uses a few rule
// sets (the built-in one, the one a policy's dlp block leaves).
const maxCachedAutomata = 16

type ruleKey struct {
	builtin          int // index in BuiltinRules
	maxPattern, size int // Options.MaxPatternLength and ChunkSize
}

type compiledRule struct {
	r    rule
	lits []lit
}

var compiled struct {
	sync.Mutex
	rules    map[ruleKey]compiledRule
	automata map[string]*automaton
}

// builtinIndex maps each built-in pattern's regex to its index in
// BuiltinRules; builtinPatterns holds the patterns, to compare against.
var builtinIndex = sync.OnceValues(func() (map[string]int, []Pattern) {
	pats := Builtin()
	idx := make(map[string]int, len(pats))
	for i, p := range pats {
		if _, dup := idx[p.Regex]; !dup {
			idx[p.Regex] = i
		}
	}
	return idx, pats
})

// builtinOf returns the index of the built-in pattern p equals, or -1.
func builtinOf(p Pattern) int {
	idx, pats := builtinIndex()
	i, ok := idx[p.Regex]
	if !ok {
		return -1
	}
	b := pats[i]
	if b.Name != p.Name || b.Exclude != p.Exclude || b.MinEntropy != p.MinEntropy || !slices.Equal(b.Keywords, p.Keywords) {
		return -1
	}
	return i
}

// compileShared is compileRule, shared for built-in patterns, with the
// literals made prefix-free; builtin reports whether p is one. The lits
// returned must not be changed.
func compileShared(p Pattern, o Options) (r rule, lits []lit, builtin bool, err error) {
	i := builtinOf(p)
	if i < 0 {
		r, lits, err = compileRule(p, o)
		return r, prefixFree(lits), false, err
	}
	k := ruleKey{builtin: i, maxPattern: o.MaxPatternLength, size: o.ChunkSize}
	compiled.Lock()
	c, ok := compiled.rules[k]
	compiled.Unlock()
	if ok {
		return c.r, c.lits, true, nil
	}
	if r, lits, err = compileRule(p, o); err != nil {
		return r, lits, true, err
	}
	lits = prefixFree(lits)
	compiled.Lock()
	if compiled.rules == nil {
		compiled.rules = make(map[ruleKey]compiledRule)
	}
	if c, ok := compiled.rules[k]; ok { // another New compiled it meanwhile
		r, lits = c.r, c.lits
	} else if len(compiled.rules) < maxCachedRules {
		compiled.rules[k] = compiledRule{r, lits}
	}
	compiled.Unlock()
	return r, lits, true, nil
}

// sharedAutomaton is newAutomaton, shared for a list of literals built
// before. Only lists that all rules of built-in patterns gave are kept
// (builtinOnly), so the key space is bounded by the built-in set.
func sharedAutomaton(pats []string, builtinOnly bool) *automaton {
	if !builtinOnly {
		return newAutomaton(pats)
	}
	key := strings.Join(pats, "\x00")
	compiled.Lock()
	a, ok := compiled.automata[key]
	compiled.Unlock()
	if ok {
		return a
	}
	a = newAutomaton(pats)
	compiled.Lock()
	if compiled.automata == nil {
		compiled.automata = make(map[string]*automaton)
	}
	if b, ok := compiled.automata[key]; ok {
		a = b
	} else if len(compiled.automata) < maxCachedAutomata {
		compiled.automata[key] = a
	}
	compiled.Unlock()
	return a
}
