package policy

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// The fold of argument values past maxFoldLen, or past a call's budget of
// normalize.Name bytes (maxNameBytes): foldLong, which must agree with
// normalize.Name (foldlong_internal_test.go).

// foldLong is the fold of a string over maxFoldLen, as normalize.Name
// folds it but at a small cost per byte: one pass that maps fullwidth
// ASCII, ß, the other NFKC compatibility forms and full case folds from
// runeFolds (U+00A0 and U+2002 are a space, as NFKC has them before
// Name removes invisible runes), removes invisible and control runes, and
// lowers case; white space trimmed. A text with a rune that composes with
// the one before it or is reordered by NFC (a combining mark, a Hangul
// vowel) is instead put in canonical order and composed (NFC), folded, and
// composed again, so that "cafe\u0301" is "café" and "\u1f88\u0301" is
// "\u1f04\u03b9", as normalize.Name has them
// (TestFoldLongAgreesWithNameSequences); the first pass stops at the first
// such rune. When the text also holds a mark that folding changes (U+0345,
// ι folded), alone or in a compatibility form (U+037A is " \u0345"), it
// is put in NFKC instead of NFC, so that the mark is reordered and
// composed before it is folded, as Name does.
func foldLong(s string) string {
	t := runeFolds()
	out, marks, _ := t.pass(s, true)
	if marks {
		var nfkc bool
		if out, _, nfkc = t.pass(norm.NFC.String(s), false); nfkc {
			out, _, _ = t.pass(norm.NFKC.String(s), false)
		}
		// NFC puts a CGJ after 30 marks in a row (UAX #15 stream-safe
		// format); normalize.Name removes it as an invisible rune.
		out = strings.ReplaceAll(norm.NFC.String(out), "\u034f", "")
	}
	return strings.TrimSpace(out)
}

// pass is foldLong's rune-by-rune pass. marks reports a rune read or
// written that NFC may compose or reorder; with stop, pass returns at the
// first (its text is then of no use). nfkc reports a rune of foldTable's
// kmark.
func (t *foldTable) pass(s string, stop bool) (_ string, marks, nfkc bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if marks && stop {
			return "", true, nfkc
		}
		switch {
		case r < 0x80:
			if r < 0x20 || r == 0x7f {
				continue
			}
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		case 0xFF01 <= r && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
		case t.is(&t.has, r):
			// Before the removal of invisible runes: normalize.Name
			// removes them after NFKC, which makes U+00A0, U+2002 or
			// U+3000 a space, kept.
			f := t.to[r]
			b.WriteString(f.s)
			marks = marks || f.marks || t.is(&t.mark, r)
			nfkc = nfkc || t.is(&t.kmark, r)
			continue
		case normalize.Invisible(r) || unicode.IsControl(r):
			continue
		default:
			if t.is(&t.mark, r) {
				marks = true
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String(), marks, nfkc
}

// runeFolds maps each rune that normalize.Name changes other than by
// unicode.ToLower to what Name makes of it inside a string: NFKC
// compatibility forms ("𝐩" and "ᵖ" are "p", "ﬁ" is "fi", "¨" is " \u0308"),
// full case folds (ß is "ss", İ is "i\u0307", ς is "σ", Cherokee small
// letters are capitals), canonical singletons. Built from normalize.Name
// itself at the first long value (about 30 ms), so that the two cannot
// drift apart; TestFoldLongAgreesWithNameEveryRune checks every rune.
var runeFolds = sync.OnceValue(runeFolds0)

// runeFolds0 builds runeFolds' table.
func runeFolds0() *foldTable {
	t := &foldTable{to: make(map[rune]foldTo)}
	var buf [2*utf8.UTFMax + 2]byte
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		if !norm.NFC.Properties(buf[:n]).BoundaryBefore() {
			t.set(&t.mark, r)
		}
		if 0xAC00 <= r && r <= 0xD7A3 || unicode.SimpleFold(r) == r && norm.NFKD.Properties(buf[:n]).Decomposition() == nil {
			continue // Hangul syllables: canonical, and NFC composes them again
		}
		// Between two '|', which compose with nothing, so that the leading
		// space of a compatibility form ("¨") is not trimmed.
		b := append(append(append(buf[:0], '|'), string(r)...), '|')
		v := normalize.Name(string(b))
		v = v[1 : len(v)-1]
		if v != string(unicode.ToLower(r)) {
			t.to[r] = foldTo{s: v, marks: composes(v)}
			t.set(&t.has, r)
			if foldsMark(norm.NFKD.String(string(r))) && (!foldsMark(norm.NFD.String(string(r))) || t.is(&t.mark, r)) {
				t.set(&t.kmark, r)
			}
		}
	}
	return t
}

// composes reports whether s holds a rune that NFC may compose with the
// rune before it or reorder.
func composes(s string) bool {
	for i := 0; i < len(s); {
		p := norm.NFC.PropertiesString(s[i:])
		if !p.BoundaryBefore() {
			return true
		}
		i += max(p.Size(), 1)
	}
	return false
}

// foldsMark reports whether s holds a non-starter that case folding
// changes (U+0345, folded to ι).
func foldsMark(s string) bool {
	for _, r := range s {
		if norm.NFC.PropertiesString(string(r)).CCC() != 0 && unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}

// foldTable is runeFolds' table: has marks the runes that to maps, mark
// the runes that NFC may compose with the rune before them or reorder,
// kmark the runes whose compatibility decomposition, not their canonical
// one, holds a mark that folding changes (U+037A), and that mark itself
// (U+0345): folded, it is a starter (ι), which no longer moves nor
// composes, so the compatibility forms around it must be decomposed,
// reordered and composed first, as NFKC does before Name folds
// ("\U0001d6c0\u2dfc\u0345" is "ωιⷼ": 𝛀 is Ω, which takes the mark).
type foldTable struct {
	has, mark, kmark runeSet
	to               map[rune]foldTo
}

// foldTo is what a rune folds to; marks: it holds a rune that NFC may
// compose or reorder.
type foldTo struct {
	s     string
	marks bool
}

type runeSet [(unicode.MaxRune + 1) / 64]uint64

func (*foldTable) set(s *runeSet, r rune)     { s[r>>6] |= 1 << (r & 63) }
func (*foldTable) is(s *runeSet, r rune) bool { return s[r>>6]&(1<<(r&63)) != 0 }
