package dlp

// scanScratch holds a scan's per-rule tables: windows of literal hits and
// the first hit of each gated rule, the rules those name, and the reader
// anchored attempts go through. The tables are as long as the rule pack, so
// they are pooled per Scanner and handed back cleared.
type scanScratch struct {
	wins    [][]window
	fired   []int
	touched []int32 // the rules with windows or a first hit, each once
	rd      countingReader
}

// scratch returns cleared tables for s's rules.
func (s *Scanner) scratch() *scanScratch {
	if v, ok := s.pool.Get().(*scanScratch); ok && len(v.wins) == len(s.rules) {
		return v
	}
	sc := &scanScratch{wins: make([][]window, len(s.rules)), fired: make([]int, len(s.rules))}
	for i := range sc.fired {
		sc.fired[i] = -1
	}
	return sc
}

// put clears the entries the scan touched and returns the tables to the
// pool. Window slices keep their capacity for the next scan; none is
// referenced after the scan that filled it.
func (sc *scanScratch) put(s *Scanner) {
	for _, i := range sc.touched {
		sc.wins[i] = sc.wins[i][:0]
		sc.fired[i] = -1
	}
	sc.touched = sc.touched[:0]
	sc.rd = countingReader{}
	s.pool.Put(sc)
}
