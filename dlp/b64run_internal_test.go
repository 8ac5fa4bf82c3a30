package dlp

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// runsOld is the run search nextB64Run replaced (every byte read up to
// fifteen times), kept as the reference: the runs, with their padding.
func runsOld(text string) [][3]int {
	var out [][3]int
	n := len(text)
	for i := 0; i+minEncodedRun <= n; {
		j := i + minEncodedRun - 1
		if !b64Alphabet[text[j]] {
			i = j + 1
			continue
		}
		k := j
		for k > i && b64Alphabet[text[k-1]] {
			k--
		}
		if k > i {
			i = k
			continue
		}
		e := j + 1
		for e < n && b64Alphabet[text[e]] {
			e++
		}
		end := e
		for p := 0; p < 2 && end < n && text[end] == '='; p++ {
			end++
		}
		out = append(out, [3]int{i, e, end})
		i = end
	}
	return out
}

func runsNew(text string) [][3]int {
	var out [][3]int
	for i := 0; ; {
		a, e, ok := nextB64Run(text, i)
		if !ok {
			return out
		}
		end := e
		for p := 0; p < 2 && end < len(text) && text[end] == '='; p++ {
			end++
		}
		out = append(out, [3]int{a, e, end})
		i = end
	}
}

// nextB64Run finds the runs the old search found, on random texts of
// alphabet bytes, padding and separators with words of every length
// around minEncodedRun, and on the benchmarks' inputs.
func TestNextB64RunMatchesOld(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "Z", "0", "+", "/", "-", "_", "=", "==", " ", ".", "\n", "%", "é"}
	check := func(text string) {
		t.Helper()
		if got, want := runsNew(text), runsOld(text); !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
		}
	}
	for range 100000 {
		var b strings.Builder
		for limit := r.IntN(600); b.Len() < limit; {
			switch r.IntN(6) {
			case 0:
				b.WriteString(strings.Repeat("x", r.IntN(2*minEncodedRun+2)))
			case 1:
				b.WriteString(strings.Repeat("y", r.IntN(200))) // across 64-byte blocks
			}
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
	for n := 0; n <= 200; n++ {
		check(strings.Repeat("A", n))
		check(strings.Repeat("A", n) + "==" + strings.Repeat("B", n))
		check(" " + strings.Repeat("A", n) + " ")
		for pad := 0; pad < 70; pad++ { // a run ending, or starting, at every offset of a block
			check(strings.Repeat(" ", pad) + strings.Repeat("A", n) + " " + strings.Repeat("B", 17))
			check(strings.Repeat("A", pad) + " " + strings.Repeat("B", n))
		}
	}
}

func FuzzNextB64Run(f *testing.F) {
	f.Add(strings.Repeat("A", 70) + " " + strings.Repeat("b", 15) + "==" + strings.Repeat("c", 16))
	f.Add("the quick_brown_fox_jumps over the lazy dog/0123456789+abcdef")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := runsNew(text), runsOld(text); !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %v\nwant %v", text, got, want)
		}
	})
}
