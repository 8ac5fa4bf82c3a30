package dlp

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// ruleShape is what a compiled rule decides with, minus its pointers.
func ruleShape(r rule) string {
	ex := ""
	if r.exclude != nil {
		ex = r.exclude.String()
	}
	return fmt.Sprintf("%s|%s|%s|%v|%d|%v|%d|%d|%d|%v|%v|%v|%t|%t|%t|%t",
		r.name, r.re.String(), ex, r.minEntropy, r.mode, r.secret, r.setting, r.maxLen, r.lo, r.musts,
		r.hi, r.fromHit, r.native != nil, r.veto != nil, r.anch != nil, r.anch != nil && r.anch.src == r.re.String())
}

// Every built-in rule a scanner takes from the shared compilations is the
// rule compileRule makes of its pattern under the scanner's options, with
// the same literals: a key that left out an option or a field would hand
// one scanner another's rule.
func TestSharedRulesAreTheirPatternsRules(t *testing.T) {
	for _, o := range []*Options{nil, {ChunkSize: 1024, Overlap: 256}, {ChunkSize: 4096, Overlap: 512, DetectEncoding: true}, {MaxPatternLength: 65536}} {
		opt, err := o.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the first New may compile, the second takes what was kept
			s, err := New(Builtin(), o)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range Builtin() {
				want, lits, err := compileRule(p, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got := ruleShape(s.rules[i]); got != ruleShape(want) {
					t.Fatalf("options %+v, %s: shared rule\n%s\nits pattern's\n%s", opt, p.Name, got, ruleShape(want))
				}
				_, shared, builtin, err := compileShared(p, opt)
				if err != nil || !builtin || !reflect.DeepEqual(shared, prefixFree(lits)) {
					t.Fatalf("options %+v, %s: literals %v (built-in %v, %v), want %v", opt, p.Name, shared, builtin, err, prefixFree(lits))
				}
			}
		}
	}
}

// The shared compilations are used: two scanners of the built-in set share
// their regexes and their automaton.
func TestBuiltinScannersShareCompilations(t *testing.T) {
	a, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.ac != b.ac {
		t.Error("two scanners of the built-in set built two automata")
	}
	for i := range a.rules {
		if a.rules[i].re != b.rules[i].re {
			t.Fatalf("%s compiled twice", a.rules[i].name)
		}
	}
}

// A built-in pattern changed in any field is its own rule, even after the
// built-in one was compiled and kept: its Exclude, Keywords, MinEntropy
// and Name apply.
func TestChangedBuiltinPatternIsNotShared(t *testing.T) {
	if _, err := New(Builtin(), nil); err != nil { // the built-in rules are kept
		t.Fatal(err)
	}
	var aws Rule
	for _, r := range BuiltinRules() {
		if r.Name == "aws-access-key-id" {
			aws = r
		}
	}
	sample := aws.Positives[0] // aws_access_key_id = AKIA...
	redacts := func(p Pattern) bool {
		t.Helper()
		s, err := New([]Pattern{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := s.Redact(sample)
		return out != sample
	}
	if !redacts(aws.Pattern) {
		t.Fatal("the built-in pattern does not redact its own sample")
	}
	excluded := aws.Pattern
	excluded.Exclude = `EXAMPLE$`
	if redacts(excluded) {
		t.Error("an Exclude added to a built-in pattern was not applied")
	}
	gated := aws.Pattern
	gated.Keywords = []string{"no-such-keyword"}
	if redacts(gated) {
		t.Error("Keywords added to a built-in pattern were not applied")
	}
	entropic := aws.Pattern
	entropic.MinEntropy = 5.9
	if redacts(entropic) {
		t.Error("a MinEntropy added to a built-in pattern was not applied")
	}
	renamed := aws.Pattern
	renamed.Name = "my-aws"
	s, err := New([]Pattern{renamed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := s.Redact(sample); !strings.Contains(out, "[REDACTED:my-aws]") {
		t.Errorf("a renamed built-in pattern redacted under another name: %q", out)
	}
}

// Errors are never kept: a built-in pattern too long for a scanner's
// MaxPatternLength fails there after the default options compiled it.
func TestSharedRulesKeepNoErrors(t *testing.T) {
	if _, err := New(Builtin(), nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := New(Builtin(), &Options{MaxPatternLength: 16})
		if !errors.Is(err, ErrPatternTooLong) {
			t.Fatalf("built-in rules under MaxPatternLength 16: %v, want ErrPatternTooLong", err)
		}
	}
	if _, err := New(Builtin(), nil); err != nil {
		t.Fatalf("after the failures: %v", err)
	}
}

// Scanners built at once from the built-in set (a server's Guards) agree.
func TestSharedRulesConcurrentNew(t *testing.T) {
	var wg sync.WaitGroup
	outs := make([]string, 8)
	sample := "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE"
	for i := range outs {
		wg.Go(func() {
			o := &Options{ChunkSize: 2048 + 1024*(i%3), Overlap: 512}
			s, err := New(Builtin(), o)
			if err != nil {
				t.Error(err)
				return
			}
			outs[i], _ = s.Redact(sample)
		})
	}
	wg.Wait()
	for i, out := range outs {
		if out != "aws_access_key_id = [REDACTED:aws-access-key-id]" {
			t.Errorf("scanner %d: %q", i, out)
		}
	}
}
