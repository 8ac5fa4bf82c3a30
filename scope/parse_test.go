package scope_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/scope"
)

// TestBadDocuments walks testdata/bad: each document must be refused with
// an *Error whose text starts with the line and column (and contains the
// message) of its first line's "# want:" comment.
func TestBadDocuments(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatal("no # want: line")
			}
			_, err = scope.Parse(data)
			var se *scope.Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse error %v (%T), want *scope.Error", err, err)
			}
			if se.Err == nil || !errors.Is(err, se.Err) {
				t.Errorf("error %v wraps no sentinel", err)
			}
			pos, msg, _ := strings.Cut(want, ": ")
			if !strings.HasPrefix(pos, "line ") {
				pos, msg = "", want
			}
			if !strings.HasPrefix(err.Error(), "scope: "+pos) || !strings.Contains(err.Error(), msg) {
				t.Errorf("error %q, want position %q and message %q", err, pos, msg)
			}
		})
	}
}

func TestErrorSentinels(t *testing.T) {
	cases := []struct {
		doc  string
		want error
	}{
		{"testdata/bad/bad-scope-space.yaml", scope.ErrSyntax},
		{"testdata/bad/empty-all.yaml", scope.ErrEmpty},
		{"testdata/bad/tool-twice.yaml", scope.ErrDuplicateTool},
		{"testdata/bad/tool-twice-normalized.yaml", scope.ErrDuplicateTool},
		{"testdata/bad/unknown-tool-field.yaml", scope.ErrUnknownField},
		{"testdata/bad/both-all-any.yaml", scope.ErrRequirement},
		{"testdata/bad/tool-name-glob.yaml", scope.ErrToolName},
	}
	for _, c := range cases {
		_, err := scope.Load(c.doc)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want errors.Is %v", c.doc, err, c.want)
		}
	}
}

func TestGoConfigErrorsNamePath(t *testing.T) {
	_, err := scope.New(scope.Config{Tools: []scope.Tool{
		{Name: "a", Requirement: scope.Requirement{All: []string{"x"}}},
		{Name: "b", When: []scope.When{{Args: map[string][]string{"env": {"prod"}}, Requirement: scope.Requirement{Any: []string{"ok", "bad scope"}}}}},
	}})
	if err == nil || err.Error() != `scope: tools[1].when[0].any[1]: "bad scope" is not an RFC 6749 scope-token: byte 3 (0x20) is outside %x21 / %x23-5B / %x5D-7E` {
		t.Errorf("got %v", err)
	}
	if !errors.Is(err, scope.ErrSyntax) {
		t.Errorf("%v is not ErrSyntax", err)
	}
}

func TestGoodDocument(t *testing.T) {
	p, err := scope.Load("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Check("deploy", []byte(`{"env":"prod"}`), []string{"deploy:write"})
	if err != nil || d.Allowed || strings.Join(d.Required, " ") != "deploy:write deploy:prod" || strings.Join(d.Missing, " ") != "deploy:prod" {
		t.Errorf("deploy prod: %+v, %v", d, err)
	}
}

func TestValidToken(t *testing.T) {
	for _, s := range []string{"a", "deploy:prod", "https://api.example.com/x.read", "!#$%&'()*+,-./0123456789:;<=>?@[]^_`{|}~"} {
		if err := scope.ValidToken(s); err != nil {
			t.Errorf("ValidToken(%q) = %v", s, err)
		}
	}
	for _, s := range []string{"", " ", "a b", `a"b`, `a\b`, "a\tb", "a\x7f", "é", "a\x00"} {
		if scope.ValidToken(s) == nil {
			t.Errorf("ValidToken(%q) accepted", s)
		}
	}
}
