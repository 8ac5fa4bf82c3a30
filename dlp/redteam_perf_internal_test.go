package dlp

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Red-team guards for the interleaved scan and the touched-rules rawSpans
// on custom packs, which the built-in pack's tests do not reach.

// widePats are literals starting with a dozen letters, so that an automaton
// holding them is not a skipping one (a.skip) and interleaves.
func widePats() []Pattern {
	var out []Pattern
	for i, c := range "cdefghijklmn" {
		out = append(out, Pattern{Name: fmt.Sprintf("w%d", i), Regex: "(?i)" + string(c) + "q[0-9]{2}"})
	}
	return out
}

// randWord is n bytes over a small alphabet, so that literals made of it
// overlap and recur.
func randWord(r *rand.Rand, n int) string {
	const alpha = "abAB01-_xyz"
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[r.IntN(len(alpha))]
	}
	return string(b)
}

// A single literal longer than a third of a block (so blocks grow to three
// times it) and longer than a whole block: the interleaved scan reports the
// single-stream loop's hits, with the literal, its prefixes and a suffix
// planted across every stream and block edge, and Redact of a pack holding
// it redacts as with the single-stream loop.
func TestRedTeamDLPPerf_LiteralLongerThanBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 20))
	found := 0
	for _, n := range []int{blockLen/3 + 1, blockLen + 5, 20000} {
		long := strings.ToLower(randWord(r, n))
		pats := []string{long, long[:1], long[:n/2], long[n-3:], "ab", "b", "xyz", "cq", "dq", "eq", "fq", "gq", "hq", "iq"}
		pats = distinct(pats)
		a := newAutomaton(pats)
		if a.skip || a.maxLen != n {
			t.Fatalf("automaton: skip %v, maxLen %d", a.skip, a.maxLen)
		}
		bl := max(blockLen, a.interleaveMin())
		for _, size := range []int{a.interleaveMin() - 1, a.interleaveMin(), a.interleaveMin() + 2, 2*bl - 1, 2 * bl, 2*bl + 3, 3*bl + 7} {
			checkScan(t, a, genText(r, a, pats, size))
		}
		pp := append(widePats(),
			Pattern{Name: "long", Regex: "(?i)" + long + "[0-9]{2}"},
			Pattern{Name: "half", Regex: long[:n/2] + "Z[0-9]"},
			Pattern{Name: "short", Regex: "(?i)ab[0-9]{3}"})
		fast, single := singleStream(t, pp, &Options{MaxPatternLength: 65536, ChunkSize: 4 * bl, Overlap: 2 * bl})
		for _, size := range []int{fast.ac.interleaveMin(), 2*bl + 1, 3*bl + 7} {
			b := []byte(genText(r, fast.ac, pats, size))
			for k, e := range streamEdges(fast.ac, size) {
				lit := []string{long + "42", long[:n/2] + "Z7", "AB123"}[k%3]
				if at := e - 1 + k%3; at >= 0 && at+len(lit) <= size {
					copy(b[at:], lit)
				}
			}
			if samePlant(t, fast, single, string(b)) {
				found++
			}
		}
	}
	if found < 6 {
		t.Fatalf("only %d of 9 texts had a redaction", found)
	}
}

func distinct(pats []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pats {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Many goroutines on one Scanner, each with its own texts that touch
// different rules (anchored, windowed, keyword-gated, without literals,
// exact-case), so that pooled scratch passes between scans with different
// touched sets: every result is the one a fresh, unshared Scanner gives.
func TestRedTeamDLPPerf_ConcurrentScratch(t *testing.T) {
	pats := append(widePats(), Builtin()...)
	pats = append(pats,
		Pattern{Name: "nolit", Regex: `[0-9]{3}-[0-9]{2}-[0-9]{4}`},
		Pattern{Name: "gated", Regex: `[A-Z]{3}-[0-9]{3}`, Keywords: []string{"ticket"}},
		Pattern{Name: "exact", Regex: `XyZ[0-9]{4}`},
		Pattern{Name: "prefix", Regex: `(?i)xy[a-z]{3}[0-9]`})
	shared, err := New(pats, &Options{DetectEncoding: true})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 21))
	var pieces []string
	for _, rule := range BuiltinRules() {
		pieces = append(pieces, rule.Positives...)
	}
	pieces = append(pieces, "ticket ABC-123", "123-45-6789", "XyZ1234", "xyz1234", "XYabc1", "cq12", " ", "\n", "The quick brown fox ")
	var texts, want []string
	for i := 0; i < 48; i++ {
		var b strings.Builder
		for b.Len() < []int{40, 400, 3000}[i%3] {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
		fresh, _ := New(pats, &Options{DetectEncoding: true})
		out, f := fresh.Redact(b.String())
		want = append(want, out+fmt.Sprint(f))
	}
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Go(func() {
			for k := 0; k < 60; k++ {
				i := (g*17 + k*5) % len(texts)
				if out, f := shared.Redact(texts[i]); out+fmt.Sprint(f) != want[i] {
					t.Errorf("goroutine %d, text %d: %v", g, i, f)
					return
				}
			}
		})
	}
	wg.Wait()
}

// Exact-case literals, literals that are prefixes of others and a
// keyword-gated rule in an interleaving custom pack: Redact agrees with the
// single-stream loop and rawSpans with the walk over every rule, with the
// literals planted in every case around every stream edge.
func TestRedTeamDLPPerf_ExactCaseAndPrefixes(t *testing.T) {
	pats := append(widePats(),
		Pattern{Name: "exact", Regex: `XyZ-[0-9]{3}`},
		Pattern{Name: "fold", Regex: `(?i)xyz-[a-z]{2}`},
		Pattern{Name: "pre", Regex: `(?i)xy[0-9]{2}`},
		Pattern{Name: "pre2", Regex: `Xy-?[0-9]{4}`},
		Pattern{Name: "gate", Regex: `[0-9]{4}-[a-z]{4}`, Keywords: []string{"XYZ"}},
		Pattern{Name: "nolit", Regex: `\b[0-9]{9}\b`})
	fast, single := singleStream(t, pats, nil)
	lits := []string{"XyZ-123", "xYz-ab", "xy12", "Xy-1234", "Xy9876", "1234-abcd", "123456789", "cq12", "xyz"}
	r := rand.New(rand.NewPCG(13, 22))
	found := 0
	for _, size := range []int{fast.ac.interleaveMin(), 300, 1000, 2*blockLen + 5} {
		for rep := 0; rep < 20; rep++ {
			b := []byte(strings.Repeat("the ", size/4+1)[:size])
			for k, e := range streamEdges(fast.ac, size) {
				lit := randomCase(r, lits[r.IntN(len(lits))])
				if r.IntN(2) == 0 {
					lit = lits[r.IntN(len(lits))]
				}
				if at := e - len(lit)/2 + k%3 - 1; at >= 0 && at+len(lit) <= size {
					copy(b[at:], lit)
				}
			}
			text := string(b)
			if samePlant(t, fast, single, text) {
				found++
			}
			got, old := fast.rawSpans(text, 1), fast.oldRawSpans(text, 1)
			if !reflect.DeepEqual(got, old) {
				t.Fatalf("rawSpans %v, old walk %v", got, old)
			}
		}
	}
	if found < 60 {
		t.Fatalf("only %d of 80 texts had a redaction", found)
	}
}
