package dlp

import (
	"strings"
	"testing"
)

// Near misses for the must-literal check (matchAnchored skips a window
// without every literal each match holds): the built-in pack redacts the
// same with and without it, on each rule's positives in many settings (at
// the end of the text, repeated, behind padding, upper-cased, with invisible
// runes, in JSON, cut short, glued to another positive).
func TestRedTeam13_MustsChangeNoRedaction(t *testing.T) {
	with, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	without, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	anchored := 0
	for i := range without.rules {
		if without.rules[i].musts != nil {
			anchored++
		}
		without.rules[i].musts = nil
	}
	if anchored == 0 {
		t.Fatal("no built-in rule has must-literals: the check is not exercised")
	}
	var pos []string
	for _, r := range BuiltinRules() {
		pos = append(pos, r.Positives...)
	}
	pad := strings.Repeat("x", 300)
	big := strings.Repeat("ab:@/ ", 12000) // beyond a chunk
	variants := func(p string, other string) []string {
		v := []string{p, p + p, "a" + p, p + "a", pad + p, p + pad, " " + p + "\n", strings.ToUpper(p), strings.ToLower(p),
			`{"k":"` + p + `"}`, p + other, other + p, p + " " + other, "\u200b" + p, p[:len(p)/2] + "\u200b" + p[len(p)/2:],
			p[:len(p)-1], p[1:], p + p[:len(p)/2], strings.ReplaceAll(p, ":", "\u200b:"), strings.ReplaceAll(p, "@", "%40"),
			"\xff" + p + "\xfe", p[:len(p)/2] + "\xff" + p[len(p)/2:], big + p, big + p + big, p + big + p}
		return v
	}
	checked := 0
	for i, p := range pos {
		if RaceDetector && i%3 != 0 {
			continue // a third of the positives under -race; the run without it checks all
		}
		other := pos[(i*7+3)%len(pos)]
		for _, text := range variants(p, other) {
			a, fa := with.Redact(text)
			b, fb := without.Redact(text)
			checked++
			if a != b || len(fa) != len(fb) {
				t.Errorf("%q: with musts %q (%d findings), without %q (%d findings)", text, a, len(fa), b, len(fb))
			}
		}
	}
	t.Logf("%d texts, %d anchored rules", checked, anchored)
}

// The same across chunk boundaries: each positive placed at offsets around
// the end of a small chunk.
func TestRedTeam13_MustsAcrossChunks(t *testing.T) {
	const chunk = 4096
	with, err := New(Builtin(), &Options{ChunkSize: chunk})
	if err != nil {
		t.Fatal(err)
	}
	without, err := New(Builtin(), &Options{ChunkSize: chunk})
	if err != nil {
		t.Fatal(err)
	}
	for i := range without.rules {
		without.rules[i].musts = nil
	}
	for _, r := range BuiltinRules() {
		for _, p := range r.Positives {
			for _, d := range []int{-len(p), -len(p) / 2, -1, 0, 1} {
				text := strings.Repeat("q ", (chunk+d)/2) + p + " tail"
				a, _ := with.Redact(text)
				b, _ := without.Redact(text)
				if a != b {
					t.Errorf("%s at %d: redactions differ with and without musts", r.Name, chunk+d)
				}
			}
		}
	}
}
