package mcpredact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// naiveIn is what wordSet.in promises: a word at any place, in any ASCII
// case.
func naiveIn(words []string, s string) bool {
	for i := range s {
		for _, w := range words {
			if i+len(w) <= len(s) && strings.EqualFold(s[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

func naiveWide(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// TestWordSetAgreesWithTheNaiveSearch compares the pair-indexed search
// with a comparison at every place, on every trigger alone in three cases
// and on random texts of the bytes the triggers hold, their capitals, and
// the bytes a key shares with them (@ and `, [ and {), a byte above ASCII
// anywhere (last too).
func TestWordSetAgreesWithTheNaiveSearch(t *testing.T) {
	words := textTriggersList()
	for _, w := range words {
		for _, s := range []string{w, strings.ToUpper(w), "x " + w + " y", "xx" + strings.ToUpper(w[:1]) + w[1:]} {
			if !textTriggers.in(s) || !textTriggers.inOrWide(s) {
				t.Errorf("%q: the word %q is not found", s, w)
			}
		}
		if near := w[:len(w)-1]; !naiveIn(words, near) && textTriggers.in(near) {
			t.Errorf("%q: found, but holds no word", near)
		}
	}
	alphabet := []byte("abcdeghijklmnoprstwyzABCDEHJKPSTW0$@`[{_ \n\x85\xe2\xff")
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200000; n++ {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := textTriggers.in(s), naiveIn(words, s); got != want {
			t.Fatalf("in(%q) = %v, want %v", s, got, want)
		}
		if got, want := textTriggers.inOrWide(s), naiveIn(words, s) || naiveWide(s); got != want {
			t.Fatalf("inOrWide(%q) = %v, want %v", s, got, want)
		}
	}
}

// textTriggersList is every word of textTriggers.
func textTriggersList() []string {
	var words []string
	for _, ws := range textTriggers.byPair {
		words = append(words, ws...)
	}
	return words
}
