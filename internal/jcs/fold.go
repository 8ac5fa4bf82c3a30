package jcs

import (
	"bytes"
	"hash/maphash"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Member names equal under case folding (ErrFoldedNames).
//
// encoding/json matches an object member to a struct field when their names
// are equal under bytes.EqualFold (Unicode simple case folding: "K", "k" and
// U+212A KELVIN SIGN are one name, so are "S", "s" and U+017F LONG S), and the
// last such member wins; go-sdk's handler decoding (segmentio/encoding/json
// without case-insensitive matching), a map[string]any and a JavaScript
// reader each take another member. An object with two such names therefore
// means different calls to different readers, so it has no canonical form.

// seed keys the hash of folded names, so that no input can be built to make
// many names collide (the check stays linear in the number of members).
var seed = maphash.MakeSeed()

// pairwise is the member count up to which names are compared pairwise.
const pairwise = 8

// folder holds reusable scratch for finding folded duplicates.
type folder struct {
	buf  []byte
	ents []foldEnt
}

type foldEnt struct {
	hash       uint64
	start, end int // folded name in buf
	idx        int
}

// foldDup returns the indices of two members of es whose names (key) are
// equal under case folding. Names must be valid UTF-8 and pairwise
// distinct as bytes.
func foldDup[E any, K ~string | ~[]byte](f *folder, es []E, key func(*E) K) (i, j int, found bool) {
	if len(es) < 2 || !mayFold(es, key) {
		return 0, 0, false
	}
	f.buf, f.ents = f.buf[:0], f.ents[:0]
	for i := range es {
		start := len(f.buf)
		f.buf = appendFolded(f.buf, key(&es[i]))
		f.ents = append(f.ents, foldEnt{start: start, end: len(f.buf), idx: i})
	}
	if len(es) <= pairwise {
		for a := range f.ents {
			for b := a + 1; b < len(f.ents); b++ {
				if f.same(a, b) {
					return f.ents[a].idx, f.ents[b].idx, true
				}
			}
		}
		return 0, 0, false
	}
	for a := range f.ents {
		f.ents[a].hash = maphash.Bytes(seed, f.buf[f.ents[a].start:f.ents[a].end])
	}
	slices.SortFunc(f.ents, func(a, b foldEnt) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return 0
	})
	for a := 0; a < len(f.ents); a++ {
		for b := a + 1; b < len(f.ents) && f.ents[b].hash == f.ents[a].hash; b++ {
			if f.same(a, b) {
				return min(f.ents[a].idx, f.ents[b].idx), max(f.ents[a].idx, f.ents[b].idx), true
			}
		}
	}
	return 0, 0, false
}

func (f *folder) same(a, b int) bool {
	x, y := f.ents[a], f.ents[b]
	return bytes.Equal(f.buf[x.start:x.end], f.buf[y.start:y.end])
}

// mayFold reports whether two of the names could be equal under folding:
// names of ASCII without upper-case letters never are, being distinct.
func mayFold[E any, K ~string | ~[]byte](es []E, key func(*E) K) bool {
	for i := range es {
		k := key(&es[i])
		for n := 0; n < len(k); n++ {
			if c := k[n]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
				return true
			}
		}
	}
	return false
}

// appendFolded appends the case-folded form of k: every rune replaced by the
// smallest rune of its unicode.SimpleFold orbit, as encoding/json folds.
func appendFolded[K ~string | ~[]byte](dst []byte, k K) []byte {
	for _, r := range string(k) {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			dst = append(dst, byte(r))
			continue
		}
		dst = utf8.AppendRune(dst, foldRune(r))
	}
	return dst
}

// foldRune returns the smallest rune of r's simple case folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

func (f *folder) dup(ms []Member) (int, int, bool) {
	return foldDup(f, ms, func(m *Member) []byte { return m.Name })
}

// FoldedPair reports whether two of names, pairwise distinct strings, are
// equal under case folding as [ErrFoldedNames] refuses them ("path" and
// "PATH", "k" and U+212A KELVIN SIGN), for decoders that check the member
// names of an object they built. Invalid UTF-8 folds rune by rune as
// U+FFFD.
func FoldedPair(names []string) bool {
	var f folder
	_, _, found := foldDup(&f, names, func(s *string) string { return *s })
	return found
}
