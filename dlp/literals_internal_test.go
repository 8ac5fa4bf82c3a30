package dlp

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// randRegex builds a random regex from pieces the analysis treats
// differently: literals, small and large classes, alternation, optional and
// repeated groups, case folding, anchors and word boundaries.
func randRegex(r *rand.Rand, depth int) string {
	if depth <= 0 {
		return []string{"ab", "k", "s", "x", "AKIA", "[abc]", "[0-9]", "[a-z]", ".", `\d`, "é", "-_"}[r.IntN(12)]
	}
	a, b := randRegex(r, depth-1), randRegex(r, depth-1)
	switch r.IntN(10) {
	case 0:
		return "(?:" + a + "|" + b + ")"
	case 1:
		return "(?:" + a + ")?" + b
	case 2:
		return "(?:" + a + ")+" + b
	case 3:
		return "(?:" + a + "){1,3}" + b
	case 4:
		return "(?i:" + a + ")" + b
	case 5:
		return `\b` + a + b
	case 6:
		return "(?:" + a + ")*" + b
	case 7:
		return "(?:" + a + "){2}"
	}
	return a + b
}

func randText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(60); n > 0; n-- {
		b.WriteString([]string{"a", "b", "c", "k", "K", "\u212a", "s", "S", "\u017f", "x", "X", "AKIA", "akia",
			"0", "7", "é", "É", "-", "_", " ", "\n", "\xff", "ab", "AB"}[r.IntN(24)])
	}
	return b.String()
}

// Every match of a random regex contains one of its derived literals at an
// offset the analysis allows, and its length is within the computed bounds.
func TestRequiredLiteralsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for i := 0; i < 3000; i++ {
		src := randRegex(r, 1+r.IntN(3))
		parsed, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(src)
		lits, lo, hi := requiredLiterals(parsed)
		short, long := lengths(parsed)
		for j := 0; j < 30; j++ {
			text := randText(r)
			for _, m := range re.FindAllStringIndex(text, -1) {
				match := text[m[0]:m[1]]
				if len(match) < short || len(match) > long {
					t.Fatalf("%q matched %q (%d bytes), bounds [%d, %d]", src, match, len(match), short, long)
				}
				if lits == nil {
					continue
				}
				checked++
				if !containsLitAt(match, lits, lo, hi) {
					t.Fatalf("%q matched %q, which holds none of %v at offsets %d..%d", src, match, lits, lo, hi)
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d matches checked", checked)
	}
}

func containsLitAt(s string, lits []lit, lo, hi int) bool {
	for _, l := range lits {
		for off := lo; off <= min(hi, len(s)-len(l.s)); off++ {
			part := s[off : off+len(l.s)]
			if part == l.s || (l.fold && lowerASCII(part) == l.s) {
				return true
			}
		}
	}
	return false
}

// The automaton reports exactly the occurrences a naive search finds.
func TestAutomatonMatchesNaiveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 500; i++ {
		var pats []string
		seen := map[string]bool{}
		for n := 1 + r.IntN(12); n > 0; n-- {
			p := lowerASCII(randText(r))
			if p == "" || len(p) > 12 || seen[p] {
				continue
			}
			seen[p] = true
			pats = append(pats, p)
		}
		if len(pats) == 0 {
			continue
		}
		a := newAutomaton(pats)
		text := randText(r) + randText(r)
		a.skip = i%2 == 0 // both scan loops
		got := map[[2]int]bool{}
		a.scan(text, func(id int32, end int) { got[[2]int{int(id), end}] = true })
		lt := lowerASCII(text)
		want := 0
		for id, p := range pats {
			for end := len(p); end <= len(lt); end++ {
				if lt[end-len(p):end] == p {
					want++
					if !got[[2]int{id, end}] {
						t.Fatalf("pattern %q at end %d in %q not reported (patterns %q)", p, end, text, pats)
					}
				}
			}
		}
		if len(got) != want {
			t.Fatalf("%d hits reported, %d exist", len(got), want)
		}
	}
}

// Every match of a random regex contains each of its must-literals, and the
// built-in rules' musts are what their regexes say.
func TestMustLiteralsSound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for i := 0; i < 3000; i++ {
		src := randRegex(r, 1+r.IntN(3))
		parsed, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(src)
		musts := mustLiterals(parsed)
		for j := 0; j < 30; j++ {
			text := randText(r)
			for _, m := range re.FindAllStringIndex(text, -1) {
				for _, l := range musts {
					checked++
					if !strings.Contains(text[m[0]:m[1]], l) {
						t.Fatalf("%q matched %q, which lacks its must-literal %q", src, text[m[0]:m[1]], l)
					}
				}
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d must-literals checked", checked)
	}
	for src, want := range map[string][]string{
		`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^:/\s@"'<>]{1,64}:(?P<secret>[^@/\s"'<>]{3,128})@[A-Za-z0-9.\[-]`: {"://", ":", "@"},
		`(?i)postgres://[^:]+:(?P<secret>[^@]+)@`:                                                            nil, // case-insensitive: no byte is certain
		`ab(cd)?ef`:  {"ab", "ef"},
		`(x|y)z{2,}`: {"z"},
		`q{0,3}r`:    {"r"},
	} {
		parsed, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustLiterals(parsed); !slices.Equal(got, want) {
			t.Errorf("mustLiterals(%q) = %q, want %q", src, got, want)
		}
	}
}
