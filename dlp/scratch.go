package dlp

// scanScratch holds a scan's per-rule tables: windows of literal hits and
// the first hit of each gated rule. They are as long as the rule pack, so
// they are pooled per Scanner and handed back cleared.
type scanScratch struct {
	wins  [][]window
	fired []int
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

// put clears the entries a scan used and returns the tables to the pool.
// Window slices keep their capacity for the next scan; none is referenced
// after the scan that filled it.
func (sc *scanScratch) put(s *Scanner, wins [][]window, fired []int) {
	if wins != nil {
		for i := range sc.wins {
			sc.wins[i] = sc.wins[i][:0]
		}
	}
	if fired != nil {
		for i := range sc.fired {
			sc.fired[i] = -1
		}
	}
	s.pool.Put(sc)
}
