package dlp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// hitAt is one reported occurrence.
type hitAt struct {
	id  int32
	end int
}

// refScan is the single-stream loop scan used before interleaving: the
// reference the interleaved scan must agree with, hit for hit and in order.
func refScan(a *automaton, text string) []hitAt {
	var out []hitAt
	s := uint32(0)
	for i := 0; i < len(text); i++ {
		s = a.next[s+uint32(a.class[text[i]])]
		if s >= a.outStart {
			for _, id := range a.out[s/uint32(a.nclass)] {
				out = append(out, hitAt{id, i + 1})
			}
		}
	}
	return out
}

func scanHits(a *automaton, text string) []hitAt {
	var out []hitAt
	a.scan(text, func(id int32, end int) { out = append(out, hitAt{id, end}) })
	return out
}

// builtinPatterns returns the built-in pack's automaton patterns, built as
// New builds them, and the scanner's automaton.
func builtinPatterns(t testing.TB) ([]string, *automaton) {
	s, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := (*Options)(nil).withDefaults()
	var pats []string
	seen := map[string]bool{}
	for _, p := range Builtin() {
		r, lits, err := compileRule(p, o)
		if err != nil || r.mode == modeAlways {
			continue
		}
		for _, l := range prefixFree(lits) {
			if k := lowerASCII(l.s); !seen[k] {
				seen[k] = true
				pats = append(pats, k)
			}
		}
	}
	if a := newAutomaton(pats); len(a.out) != len(s.ac.out) || a.maxLen != s.ac.maxLen || a.nclass != s.ac.nclass {
		t.Fatalf("rebuilt automaton differs from New's: %d/%d states", len(a.out), len(s.ac.out))
	}
	return pats, s.ac
}

// streamEdges returns, for a text of length n, every offset where a part of
// a stream or a block starts or ends, and where a stream starts reading.
func streamEdges(a *automaton, n int) []int {
	if a.skip || n < a.interleaveMin() {
		return nil
	}
	var edges []int
	bl := max(blockLen, a.interleaveMin())
	add := func(lo, hi int) {
		var q streams
		q.split(lo, hi, a.maxLen-1)
		edges = append(edges, q.from[:]...)
		edges = append(edges, q.at[:]...)
	}
	lo := 0
	for ; n-lo >= 2*bl; lo += bl {
		add(lo, lo+bl)
	}
	add(lo, n)
	return edges
}

// genText builds a text of length n from the patterns (in random case),
// random bytes and filler, with patterns planted to end exactly around every
// stream edge and to start just before where a stream starts reading.
func genText(r *rand.Rand, a *automaton, pats []string, n int) string {
	b := []byte(strings.Repeat(" ", n))
	for i := 0; i < n; {
		var piece string
		switch r.IntN(6) {
		case 0, 1:
			piece = pats[r.IntN(len(pats))]
		case 2:
			piece = string([]byte{byte(r.IntN(256)), byte(r.IntN(256))})
		case 3: // overlapping occurrences: a pattern run into itself
			p := pats[r.IntN(len(pats))]
			piece = p + p[len(p)/2:]
		default:
			piece = "The quick brown fox 0123 "[r.IntN(20):]
		}
		i += copy(b[i:], randomCase(r, piece))
	}
	for _, e := range streamEdges(a, n) {
		for _, d := range []int{-1, 0, 1, 2} {
			p := pats[r.IntN(len(pats))]
			if r.IntN(3) == 0 {
				p = longest(pats)
			}
			if end := e + d; end-len(p) >= 0 && end <= n {
				copy(b[end-len(p):], randomCase(r, p))
			}
		}
	}
	return string(b)
}

func randomCase(r *rand.Rand, s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' && r.IntN(3) == 0 {
			b[i] = c - 32
		}
	}
	return string(b)
}

func longest(pats []string) string {
	return slices.MaxFunc(pats, func(x, y string) int { return len(x) - len(y) })
}

// checkScan fails unless the scan of text reports what the reference does.
func checkScan(t *testing.T, a *automaton, text string) int {
	t.Helper()
	want, got := refScan(a, text), scanHits(a, text)
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("len %d: %d hits, want %d; first difference at hit %d (got %v, want %v)",
			len(text), len(got), len(want), i, got[i:min(len(got), i+3)], want[i:min(len(want), i+3)])
	}
	return len(want)
}

// The built-in pack's interleaved scan reports exactly the hits of the
// single-stream loop, in order, on texts of every length around the
// thresholds and block edges, with occurrences straddling every edge.
func TestInterleavedScanMatchesReference(t *testing.T) {
	pats, a := builtinPatterns(t)
	r := rand.New(rand.NewPCG(13, 1))
	bl := max(blockLen, a.interleaveMin())
	var lengths []int
	for n := 0; n < 3*a.interleaveMin(); n++ {
		lengths = append(lengths, n)
	}
	for _, c := range []int{1024, 4096, bl, 2 * bl, 3 * bl, 5*bl + 77} {
		for d := -3; d <= 3; d++ {
			lengths = append(lengths, c+d)
		}
	}
	hits, edges := 0, 0
	for _, n := range lengths {
		for rep := 0; rep < 3; rep++ {
			text := genText(r, a, pats, n)
			hits += checkScan(t, a, text)
			edges += len(streamEdges(a, n))
		}
	}
	if hits < 100000 || edges < 5000 {
		t.Fatalf("only %d hits and %d stream edges checked", hits, edges)
	}
}

// The same over random pattern sets (short and long patterns, few and many
// byte classes), both scan loops: a.skip set or not.
func TestInterleavedScanRandomPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	alphabet := "abcxyzAKIA0_-:/ \xff"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return lowerASCII(string(b))
	}
	hits := 0
	for i := 0; i < 300; i++ {
		seen := map[string]bool{}
		var pats []string
		for n := 1 + r.IntN(40); n > 0; n-- {
			p := word(1 + r.IntN([]int{3, 8, 64}[i%3]))
			if !seen[p] {
				seen[p] = true
				pats = append(pats, p)
			}
		}
		a := newAutomaton(pats)
		a.skip = i%5 == 0
		n := a.interleaveMin() + r.IntN(2000) - 3
		if i%50 == 0 {
			n = 2*max(blockLen, a.interleaveMin()) + r.IntN(300)
		}
		hits += checkScan(t, a, genText(r, a, pats, n))
		hits += checkScan(t, a, word(n))
	}
	if hits < 100000 {
		t.Fatalf("only %d hits checked", hits)
	}
}

// FuzzInterleavedScan: the interleaved scan of the built-in pack agrees with
// the single-stream loop on any text, repeated to a length around the
// thresholds.
func FuzzInterleavedScan(f *testing.F) {
	pats, a := builtinPatterns(f)
	f.Add([]byte("The quick brown fox "+pats[0]), uint16(0))
	f.Add([]byte(longest(pats)+"ghp_"+strings.ToUpper(pats[1])), uint16(700))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		if len(data) == 0 {
			return
		}
		size := int(n) % (3 * a.interleaveMin())
		if n&1 == 1 {
			size = 2*blockLen - 512 + int(n)%1024
		}
		text := strings.Repeat(string(data), size/len(data)+1)[:size]
		checkScan(t, a, text)
	})
}

// split's parts tile (lo, hi] in order, each stream starts own bytes before
// its part (stream 0 of the first block at 0), and every stream has at least
// m bytes to read inside the text, for any block scanBlock is given.
func TestSplitInvariants(t *testing.T) {
	for _, maxLen := range []int{1, 2, 5, 43, 64, 300, 5000} {
		a := &automaton{maxLen: maxLen}
		own, bl := maxLen-1, max(blockLen, a.interleaveMin())
		for _, lo := range []int{0, bl, 7 * bl} {
			lengths := []int{2*bl - 1, 100 * bl}
			for n := a.interleaveMin(); n < a.interleaveMin()+300; n++ {
				lengths = append(lengths, n)
			}
			for _, n := range lengths {
				var q streams
				m := q.split(lo, lo+n, own)
				if q.from[0] != lo || q.from[nStreams] != lo+n || q.at[0] != lo-min(own, lo) {
					t.Fatalf("maxLen %d, (%d, %d]: from %v at %v", maxLen, lo, lo+n, q.from, q.at)
				}
				for j := range nStreams {
					if q.from[j+1] <= q.from[j] || q.at[j] < 0 || q.at[j]+m > lo+n ||
						j > 0 && q.from[j]-q.at[j] != own || j < nStreams-1 && q.at[j]+m != q.from[j+1] {
						t.Fatalf("maxLen %d, (%d, %d], stream %d: m %d, from %v at %v", maxLen, lo, lo+n, j, m, q.from, q.at)
					}
				}
			}
		}
	}
}

// benchScan times the built-in pack's automaton alone over text, with a hit
// callback that only counts.
func benchScan(b *testing.B, text string) {
	s, err := New(Builtin(), nil)
	if err != nil {
		b.Fatal(err)
	}
	hits := 0
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s.ac.scan(text, func(int32, int) { hits++ })
	}
	if hits < 0 {
		b.Fatal("unreachable")
	}
}

func BenchmarkAutomatonScan1KiB(b *testing.B) {
	benchScan(b, strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 19)[:1024])
}

func BenchmarkAutomatonScan64B(b *testing.B) {
	benchScan(b, `{"url":"https://github.com/gatehouse-dev/gatehouse"}`)
}

func BenchmarkAutomatonScan16KiB(b *testing.B) {
	benchScan(b, strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789 ", 300)[:16<<10])
}
