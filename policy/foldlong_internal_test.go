package policy

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// TestFoldLongAgreesWithName: past maxFoldLen a value is folded by
// foldLong, not normalize.Name; for the spellings below (decomposed
// sequences, marks out of canonical order, Hangul jamo, canonical
// singletons, compatibility forms next to marks) the two must agree, or
// padding a value past 16 KiB skips the deny rules that catch it short.
// Before foldLong composed, "cafe\u0301" stayed decomposed and "*café*"
// did not catch it.
func TestFoldLongAgreesWithName(t *testing.T) {
	pad := strings.Repeat(" ", maxFoldLen+1)
	corpus := []string{
		"cafe\u0301", "CAFE\u0301", "café", "CAFÉ",
		"e\u0301\u0323", "e\u0323\u0301", "o\u0308\u0304",
		"\u1100\u1161\u11a8", "\u1112\u1161\u11ab\u1100\u1173\u11af",
		"\u212b", "\u2126", "\u212a",
		"\uff45\u0301", "\u017f\u0307", "A\u030a", "n\u0303o",
		"ﬁ\u0301", "𝐞\u0301", "ᵉ\u0301",
		"stra\u00dfe", "STRA\u1e9eE", "\u0130", "i\u0307",
		"e\u200b\u0301", "x\u0301y", "\u1f88\u0301", "\u0345\u0303",
		"a" + strings.Repeat("\u0301\u0323", 40) + "b",
		// U+0345 is ι folded, a starter: what NFKC composes with it or
		// moves before it (compatibility forms) comes first (red team
		// rtv).
		"\U0001d6c0\u2dfc\u0345", "\u32f0\u0345\u073a\u2cef\uff9f", "\U0001d6c8\u0345\u09cd",
		"\u3308\u0345\uff9e", "\u1d6e\u0345", "\u2126\u0301\u0345", "\U0001d6c0\u0345",
		// Near misses: marks that compose with nothing, or with a base
		// of their own.
		"\u0301cafe", "cafe\u0300", "q\u0301",
	}
	for _, c := range corpus {
		want := normalize.Name(c)
		if got := foldLong(c + pad); got != want {
			t.Errorf("foldLong(%+q + pad) = %+q, normalize.Name = %+q", c, got, want)
		}
		if got := foldLong(pad + c); got != want {
			t.Errorf("foldLong(pad + %+q) = %+q, normalize.Name = %+q", c, got, want)
		}
	}
}

// TestFoldLongAgreesWithNameEveryRune: the same for every rune alone.
func TestFoldLongAgreesWithNameEveryRune(t *testing.T) {
	bad := 0
	for r := rune(0); r <= 0x10ffff; r++ {
		if 0xd800 <= r && r <= 0xdfff {
			continue
		}
		s := string(r)
		if got, want := foldLong(s), normalize.Name(s); got != want {
			if bad++; bad <= 40 {
				t.Errorf("U+%04X %q: foldLong %+q, normalize.Name %+q", r, s, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d runes disagree", bad)
	}
}

// TestFoldLongAgreesWithNameSequences: the same for sequences of runes
// that interact (bases and marks in and out of canonical order, jamo,
// Greek with iota subscripts, final sigma, dotted I, compatibility forms
// that decompose to a space and a mark), drawn from a fixed seed.
func TestFoldLongAgreesWithNameSequences(t *testing.T) {
	alphabet := []rune("aeiouAEIOUsSjJkKω\u03a9\u03c2\u03a3\u0130\u0131\u0345\u0301\u0300\u0308\u0323\u0307\u030a\u0303\u0342" +
		"\u1100\u1161\u11a8\uac00\u00a8\u0385\u1fbe\u1f88\u017f\u212a\u212b\u00df\u1e9e\ufb01\uff21\u13a0\uab70\u200b \u00e9\u00c5")
	rng := rand.New(rand.NewPCG(19, 24))
	bad := 0
	for range 50000 {
		n := 1 + rng.IntN(8)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(rs)
		if got, want := foldLong(s), normalize.Name(s); got != want {
			if bad++; bad <= 20 {
				t.Errorf("%+q: foldLong %+q, normalize.Name %+q", s, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 50000 sequences disagree", bad)
	}
}

// BenchmarkFoldTable is the one-time cost of runeFolds' table.
func BenchmarkFoldTable(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		runeFolds = sync.OnceValue(runeFolds0)
		runeFolds()
	}
}

// TestFoldLongAgreesWithNameEveryRuneInContext: the same for every rune
// that foldLong maps or composes, between two letters and between
// a letter and a mark. Alone, a rune that NFKC makes a space (U+00A0,
// U+2002) is trimmed either way; between letters, foldLong removed it as
// invisible where normalize.Name keeps the space (red team rtv), and
// U+037A before a mark was folded before NFKC reordered its mark.
func TestFoldLongAgreesWithNameEveryRuneInContext(t *testing.T) {
	tb := runeFolds()
	bad := 0
	for r := rune(0x80); r <= 0x10ffff; r++ {
		if 0xd800 <= r && r <= 0xdfff || !tb.is(&tb.has, r) && !tb.is(&tb.mark, r) {
			continue
		}
		for _, c := range [][2]string{{"a", "b"}, {"e", "\u0301"}, {"\u1100", "\u11a8"}, {"\U0001d6c0", "\u0345"}, {"\u0345", "\u0301"}} {
			s := c[0] + string(r) + c[1]
			if got, want := foldLong(s), normalize.Name(s); got != want {
				if bad++; bad <= 40 {
					t.Errorf("%+q: foldLong %+q, normalize.Name %+q", s, got, want)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d runes in context disagree", bad)
	}
}
