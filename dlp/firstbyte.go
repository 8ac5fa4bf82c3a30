package dlp

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// firstBytes says which bytes a match of a rule can start with, from the
// regex's leading terms, so that the anchored attempts of modeAnchor skip
// the start positions no match can have: for `\b[A-Za-z]...://`, only a
// letter after a non-word byte can start a match, not each of the 20 bytes
// before "://". A regex whose start it cannot bound has none (every start
// is tried, as before).
type firstBytes struct {
	ok [256]bool
	// wordStart: the regex begins with \b and then a word byte, so the byte
	// before a start must not be a word byte.
	wordStart bool
}

// admits reports whether a match of the rule can start at text[p].
func (f *firstBytes) admits(text string, p int) bool {
	if p >= len(text) || !f.ok[text[p]] {
		return false
	}
	return !f.wordStart || p == 0 || !isWordByte(text[p-1])
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// newFirstBytes computes the set for src, or nil.
func newFirstBytes(src string) *firstBytes {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	f := &firstBytes{}
	re = re.Simplify()
	for {
		switch re.Op {
		case syntax.OpCapture:
			re = re.Sub[0]
			continue
		case syntax.OpConcat:
			i := 0
			for i < len(re.Sub) && re.Sub[i].Op == syntax.OpWordBoundary {
				f.wordStart = true
				i++
			}
			if i >= len(re.Sub) {
				return nil
			}
			re = re.Sub[i]
			continue
		case syntax.OpPlus:
			re = re.Sub[0]
			continue
		case syntax.OpRepeat:
			if re.Min < 1 {
				return nil
			}
			re = re.Sub[0]
			continue
		}
		break
	}
	if !f.fill(re) {
		return nil
	}
	if f.wordStart {
		for b := 0; b < 256; b++ {
			if f.ok[b] && !isWordByte(byte(b)) {
				f.wordStart = false // \b before a non-word byte: nothing to say of the byte before
				break
			}
		}
	}
	return f
}

// fill marks the first bytes of the runes re's first term matches.
func (f *firstBytes) fill(re *syntax.Regexp) bool {
	var ranges []rune
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return false
		}
		r := re.Rune[0]
		ranges = []rune{r, r}
		if re.Flags&syntax.FoldCase != 0 {
			for s := unicodeFold(r); s != r; s = unicodeFold(s) {
				ranges = append(ranges, s, s)
			}
		}
	case syntax.OpCharClass:
		ranges = re.Rune
	default:
		return false
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if hi >= utf8.RuneSelf {
			for b := 0xC0; b < 256; b++ { // any lead byte of a multi-byte rune
				f.ok[b] = true
			}
			hi = utf8.RuneSelf - 1
		}
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			f.ok[r] = true
		}
	}
	return true
}

// unicodeFold is the next rune in r's case-folding orbit (unicode.SimpleFold).
func unicodeFold(r rune) rune { return unicode.SimpleFold(r) }
