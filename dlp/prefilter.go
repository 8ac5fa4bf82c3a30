package dlp

// automaton is an Aho-Corasick automaton over byte strings, matched ASCII
// case-insensitively. It is a full DFA over byte classes: one table lookup per
// input byte, no failure-link chasing at scan time. States are numbered so that
// every state with an output comes after all states without one, and stored
// premultiplied by the number of classes, so the hot loop is a load, an add
// and a compare.
type automaton struct {
	class    [256]uint8
	nclass   int32
	next     []uint32  // next[state+class], states premultiplied by nclass
	outStart uint32    // premultiplied states >= outStart have outputs
	out      [][]int32 // out[state/nclass]: pattern ids ending in that state
	// leaves[b] is true when byte b keeps the root state at the root: a run
	// of such bytes is skipped without table lookups. skip is set when most
	// lower-case letters are leaves, so that skipping pays off on text.
	leaves [256]bool
	skip   bool
	maxLen int // the longest pattern, in bytes
}

// newAutomaton builds the automaton for pats, which must be non-empty,
// distinct and lower case.
func newAutomaton(pats []string) *automaton {
	a := &automaton{}
	for _, p := range pats {
		a.maxLen = max(a.maxLen, len(p))
	}
	// Byte classes: every byte that occurs in a pattern (after lower-casing)
	// gets its own class; upper-case letters share their lower-case class;
	// everything else is class 0.
	var seen [256]bool
	for _, p := range pats {
		for i := 0; i < len(p); i++ {
			seen[p[i]] = true
		}
	}
	n := uint8(1)
	for b := 0; b < 256; b++ {
		if seen[b] && !(b >= 'A' && b <= 'Z' && seen[b+32]) {
			a.class[b] = n
			n++
		}
	}
	for b := 'A'; b <= 'Z'; b++ {
		a.class[b] = a.class[b+32]
	}
	nc := int(n)
	a.nclass = int32(nc)

	// Trie.
	trie := [][]int32{make([]int32, nc)}
	outs := [][]int32{nil}
	for id, p := range pats {
		s := int32(0)
		for i := 0; i < len(p); i++ {
			c := a.class[p[i]]
			if trie[s][c] == 0 {
				trie = append(trie, make([]int32, nc))
				outs = append(outs, nil)
				trie[s][c] = int32(len(trie) - 1)
			}
			s = trie[s][c]
		}
		outs[s] = append(outs[s], int32(id))
	}

	// Breadth-first: failure links turn the trie into a DFA, and each state
	// inherits the outputs of its failure state.
	fail := make([]int32, len(trie))
	queue := make([]int32, 0, len(trie))
	for c := 0; c < nc; c++ {
		if t := trie[0][c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for q := 0; q < len(queue); q++ {
		s := queue[q]
		outs[s] = append(outs[s], outs[fail[s]]...)
		for c := 0; c < nc; c++ {
			t := trie[s][c]
			if t != 0 {
				fail[t] = trie[fail[s]][c]
				queue = append(queue, t)
			} else {
				trie[s][c] = trie[fail[s]][c]
			}
		}
	}

	// Renumber: root first, states with outputs last, each part in
	// breadth-first order so that the shallow states, where the scan spends
	// nearly all its time, share cache lines.
	bfs := append([]int32{0}, queue...)
	order := make([]int32, 0, len(trie))
	for _, s := range bfs {
		if len(outs[s]) == 0 {
			order = append(order, s)
		}
	}
	a.outStart = uint32(len(order)) * uint32(a.nclass)
	for _, s := range bfs {
		if len(outs[s]) != 0 {
			order = append(order, s)
		}
	}
	newID := make([]int32, len(trie))
	for i, s := range order {
		newID[s] = int32(i)
	}
	letters := 0
	for b := 0; b < 256; b++ {
		a.leaves[b] = trie[0][a.class[b]] == 0
		if a.leaves[b] && b >= 'a' && b <= 'z' {
			letters++
		}
	}
	a.skip = letters >= 20
	a.next = make([]uint32, len(trie)*nc)
	a.out = make([][]int32, len(trie))
	for i, s := range order {
		for c := 0; c < nc; c++ {
			a.next[i*nc+c] = uint32(newID[trie[s][c]] * a.nclass)
		}
		a.out[i] = outs[s]
	}
	return a
}

// scan calls hit for every occurrence of every pattern in text, in order of
// end position, with the pattern id and the end offset. Occurrences that end
// at the same offset come longest first.
func (a *automaton) scan(text string, hit func(id int32, end int)) {
	switch {
	case a.skip:
		a.scanSkip(text, hit)
	case len(text) >= a.interleaveMin():
		a.scanInterleaved(text, hit)
	default:
		a.scanFrom(text, 0, 0, hit)
	}
}

// scanFrom runs the automaton from state s (premultiplied) over text[i:]
// and reports the occurrences that end there.
func (a *automaton) scanFrom(text string, i int, s uint32, hit func(id int32, end int)) {
	for i < len(text) {
		if i, s = a.step(text, i, s); s >= a.outStart {
			a.report(s, i, hit)
		}
	}
}

// step runs the automaton from state s over text[i:] until it reaches a
// state with outputs or the end of text, and returns the offset after the
// last byte read and the state. The loop holds no call, so that the state
// stays in a register.
func (a *automaton) step(text string, i int, s uint32) (int, uint32) {
	next, class, outStart := a.next, &a.class, a.outStart
	for i < len(text) {
		s = next[uint(s)+uint(class[text[i]])]
		i++
		if s >= outStart {
			break
		}
	}
	return i, s
}

// report calls hit for the outputs of state s (premultiplied), ending at end.
func (a *automaton) report(s uint32, end int, hit func(id int32, end int)) {
	for _, id := range a.out[s/uint32(a.nclass)] {
		hit(id, end)
	}
}

// scanSkip is scan for automata whose root leaves most letters: at the root,
// runs of bytes that lead nowhere are skipped in a loop without a dependent
// load.
func (a *automaton) scanSkip(text string, hit func(id int32, end int)) {
	next, class, outStart, leaves := a.next, &a.class, a.outStart, &a.leaves
	s := uint32(0)
	for i := 0; i < len(text); i++ {
		if s == 0 {
			for i < len(text) && leaves[text[i]] {
				i++
			}
			if i == len(text) {
				return
			}
		}
		s = next[uint(s)+uint(class[text[i]])]
		if s >= outStart {
			a.report(s, i+1, hit)
		}
	}
}
