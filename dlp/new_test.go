package dlp_test

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

func TestNewRejects(t *testing.T) {
	ok := dlp.Pattern{Name: "ok", Regex: `tok_[0-9]{4}`}
	tests := []struct {
		name    string
		pats    []dlp.Pattern
		opts    *dlp.Options
		want    error
		index   int
		inError string // the error names the rule
	}{
		{"empty name", []dlp.Pattern{ok, {Regex: `x{2}`}}, nil, dlp.ErrEmptyName, 1, `pattern 1 ""`},
		{"control in name", []dlp.Pattern{{Name: "a\nb", Regex: `xx`}}, nil, dlp.ErrBadName, 0, `"a\nb"`},
		{"bracket in name", []dlp.Pattern{{Name: "a]b", Regex: `xx`}}, nil, dlp.ErrBadName, 0, `"a]b"`},
		{"long name", []dlp.Pattern{{Name: strings.Repeat("n", 129), Regex: `xx`}}, nil, dlp.ErrBadName, 0, "nnnn"},
		{"duplicate", []dlp.Pattern{ok, {Name: "ok", Regex: `other`}}, nil, dlp.ErrDuplicateName, 1, `"ok"`},
		{"empty regex", []dlp.Pattern{{Name: "e"}}, nil, dlp.ErrEmptyRegex, 0, `"e"`},
		{"invalid regex", []dlp.Pattern{ok, {Name: "Broken Rule", Regex: `(unclosed`}}, nil, dlp.ErrBadRegex, 1, `"Broken Rule"`},
		{"perl lookahead", []dlp.Pattern{{Name: "look", Regex: `(?=x)y`}}, nil, dlp.ErrBadRegex, 0, `"look"`},
		{"repeat too big", []dlp.Pattern{{Name: "rep", Regex: `a{2000}`}}, nil, dlp.ErrBadRegex, 0, `"rep"`},
		{"too long", []dlp.Pattern{{Name: "long", Regex: strings.Repeat("a", 4097)}}, nil, dlp.ErrPatternTooLong, 0, "4097 bytes"},
		{"too long for option", []dlp.Pattern{{Name: "long", Regex: strings.Repeat("a", 11)}}, &dlp.Options{MaxPatternLength: 10}, dlp.ErrPatternTooLong, 0, `"long"`},
		{"empty match", []dlp.Pattern{{Name: "star", Regex: `a*`}}, nil, dlp.ErrEmptyMatch, 0, `"star"`},
		{"empty match anchor", []dlp.Pattern{{Name: "anchor", Regex: `^|x`}}, nil, dlp.ErrEmptyMatch, 0, `"anchor"`},
		{"empty keyword", []dlp.Pattern{{Name: "kw", Regex: `xx`, Keywords: []string{"a", ""}}}, nil, dlp.ErrBadKeyword, 0, `"kw"`},
		{"negative entropy", []dlp.Pattern{{Name: "h", Regex: `xx`, MinEntropy: -1}}, nil, dlp.ErrBadEntropy, 0, `"h"`},
		{"entropy above 8", []dlp.Pattern{{Name: "h", Regex: `xx`, MinEntropy: 8.5}}, nil, dlp.ErrBadEntropy, 0, `"h"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := dlp.New(tc.pats, tc.opts)
			if s != nil || !errors.Is(err, tc.want) {
				t.Fatalf("New: %v, want %v", err, tc.want)
			}
			var pe *dlp.PatternError
			if !errors.As(err, &pe) || pe.Index != tc.index || pe.Name != tc.pats[tc.index].Name {
				t.Fatalf("error %v is not a *PatternError for pattern %d", err, tc.index)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "dlp: ") || !strings.Contains(msg, tc.inError) {
				t.Errorf("message %q lacks the prefix or %q", msg, tc.inError)
			}
		})
	}
}

func TestNewRegexErrorWrapsSyntaxError(t *testing.T) {
	_, err := dlp.New([]dlp.Pattern{{Name: "r", Regex: `[z-a]`}}, nil)
	var se *syntax.Error
	if !errors.As(err, &se) || se.Code != syntax.ErrInvalidCharRange {
		t.Fatalf("error %v does not wrap the *syntax.Error", err)
	}
}

func TestNewRejectsOptions(t *testing.T) {
	for _, o := range []dlp.Options{
		{EncodingDepth: -1}, {EncodingDepth: 5}, {MaxPatternLength: -1}, {MaxPatternLength: 70000},
		{ChunkSize: 100}, {ChunkSize: -1}, {ChunkSize: 4096, Overlap: 3000}, {Overlap: -5},
	} {
		if _, err := dlp.New(nil, &o); !errors.Is(err, dlp.ErrBadOptions) || !strings.HasPrefix(err.Error(), "dlp: ") {
			t.Errorf("New(%+v): %v, want ErrBadOptions", o, err)
		}
	}
}

func TestNewAcceptsEdgeCases(t *testing.T) {
	// No patterns: a scanner that finds nothing.
	s, err := dlp.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, f := s.Redact("AKIA" + "IOSFODNN7EXAMPLE"); f != nil || out != "AKIA"+"IOSFODNN7EXAMPLE" {
		t.Errorf("empty scanner changed the text: %q %v", out, f)
	}
	// A pathological pattern is valid RE2 and runs in linear time (AIP §8.2).
	s, err = dlp.New([]dlp.Pattern{{Name: "redos", Regex: `(a+)+$`}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Repeat("a", 1<<16) + "!"
	if _, f := s.Redact(in); f != nil {
		t.Errorf("(a+)+$ matched %q...", in[:8])
	}
	// Options are copied: changing them after New has no effect.
	o := &dlp.Options{DetectEncoding: true}
	s, err = dlp.New(dlp.Builtin(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.DetectEncoding = false
	if _, f := s.Redact("x " + hexOf("AKIA"+"IOSFODNN7EXAMPLE")); f == nil {
		t.Error("encoding detection was switched off by mutating the options")
	}
	if got := s.Rules(); len(got) != len(dlp.Builtin()) || got[0] != dlp.Builtin()[0].Name {
		t.Errorf("Rules() = %v", got)
	}
}

func hexOf(s string) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&15])
	}
	return b.String()
}
