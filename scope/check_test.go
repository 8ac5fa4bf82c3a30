package scope_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/scope"
)

func goodPolicy(t testing.TB) *scope.Policy {
	t.Helper()
	p, err := scope.Load("testdata/good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckArgumentSpellings: every spelling of env=prod needs
// deploy:prod; the near misses need only deploy:write.
func TestCheckArgumentSpellings(t *testing.T) {
	p := goodPolicy(t)
	writer := []string{"deploy:write"}
	prod := []string{
		`{"env":"prod"}`,
		`{"env":"PROD"}`,
		`{"ENV":"prod"}`,
		`{"Env":" prod "}`,
		`{"env":"pr\u200bod"}`,
		`{"e\u200bnv":"prod"}`,
		`{"env":"ｐｒｏｄ"}`,
		`{"env":"dev","env":"prod"}`,
		`{"env":"prod","env":"dev"}`,
		`{"env":"dev","ENV":"prod"}`,
		`{"env":["dev","prod"]}`,
		`{"env":{"name":"prod"}}`,
		`{"env":{"prod":true}}`,
		`{"env":{"a":{"b":["x","prod"]}}}`,
		`{"env":{"x":"prod","x":"dev"}}`,
		`{"other":1,"env":"prod"}`,
	}
	for _, args := range prod {
		d, err := p.Check("deploy", []byte(args), writer)
		if err != nil || d.Allowed || strings.Join(d.Missing, " ") != "deploy:prod" {
			t.Errorf("deploy %s: %+v, %v; want deploy:prod missing", args, d, err)
		}
	}
	nearMisses := []string{
		``, `null`, `{}`,
		`{"env":"staging2"}`,
		`{"env":"production"}`,
		`{"env":"pro"}`,
		`{"environment":"prod"}`,
		`{"target":"prod"}`,
		`{"target":{"env":"prod"}}`,
		`{"env":null}`,
		`{"env":"dev"}`,
	}
	for _, args := range nearMisses {
		d, err := p.Check("deploy", []byte(args), writer)
		if err != nil || !d.Allowed || strings.Join(d.Required, " ") != "deploy:write" {
			t.Errorf("deploy %s: %+v, %v; want allowed with deploy:write", args, d, err)
		}
	}
}

func TestCheckSemantics(t *testing.T) {
	p := goodPolicy(t)
	cases := []struct {
		tool, args string
		granted    []string
		allowed    bool
		required   string
		missing    string
	}{
		// any: the granted alternative is the one required.
		{"read_file", `{}`, []string{"files:write"}, true, "files:write", ""},
		{"read_file", `{}`, []string{"files:read", "files:write"}, true, "files:read", ""},
		// any, none granted: the first alternative is asked for.
		{"read_file", `{}`, []string{"mcp:tools"}, false, "files:read", "files:read"},
		// the tool's own requirement replaces the default.
		{"READ_FILE", `{}`, []string{"files:read"}, true, "files:read", ""},
		// unnamed tools get the default.
		{"echo", `{}`, []string{"mcp:tools"}, true, "mcp:tools", ""},
		{"echo", `{}`, nil, false, "mcp:tools", "mcp:tools"},
		// scopes compare exactly.
		{"echo", `{}`, []string{"MCP:TOOLS", "mcp:tools "}, false, "mcp:tools", "mcp:tools"},
		// all: every scope; requirements add up.
		{"deploy", `{"env":"prod"}`, nil, false, "deploy:write deploy:prod", "deploy:write deploy:prod"},
		{"deploy", `{"env":"prod"}`, []string{"deploy:prod", "deploy:write"}, true, "deploy:write deploy:prod", ""},
		// a when needs all its argument patterns.
		{"deploy", `{"env":"staging"}`, []string{"deploy:write"}, true, "deploy:write", ""},
		{"deploy", `{"env":"staging","force":true}`, []string{"deploy:write"}, false, "deploy:write deploy:force", "deploy:force"},
		{"deploy", `{"env":"QA-7","force":"TRUE"}`, []string{"deploy:write"}, false, "deploy:write deploy:force", "deploy:force"},
		{"deploy", `{"env":"qa","force":true}`, []string{"deploy:write"}, true, "deploy:write", ""},
		{"deploy", `{"env":"staging","force":false}`, []string{"deploy:write"}, true, "deploy:write", ""},
		// both whens.
		{"deploy", `{"env":["prod","staging"],"force":true}`, []string{"deploy:write"}, false, "deploy:write deploy:prod deploy:force", "deploy:prod deploy:force"},
	}
	for _, c := range cases {
		d, err := p.Check(c.tool, []byte(c.args), c.granted)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != c.allowed || strings.Join(d.Required, " ") != c.required || strings.Join(d.Missing, " ") != c.missing {
			t.Errorf("%s %s with %v: %+v; want allowed=%v required=%q missing=%q", c.tool, c.args, c.granted, d, c.allowed, c.required, c.missing)
		}
	}
}

func TestCheckRefusesNonObjectArgs(t *testing.T) {
	p := goodPolicy(t)
	deep := `{"env":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`
	for _, args := range []string{`[]`, `"prod"`, `{"env":"prod"`, `{"env":"prod"} {}`, `{"env":}`, `1`, deep} {
		if _, err := p.Check("deploy", []byte(args), nil); !errors.Is(err, scope.ErrArgs) {
			t.Errorf("Check(%s) error %v, want ErrArgs", args, err)
		}
	}
}

func TestListable(t *testing.T) {
	p := goodPolicy(t)
	cases := []struct {
		tool    string
		granted []string
		want    bool
	}{
		{"deploy", []string{"deploy:write"}, true}, // some call passes, prod needs more
		{"deploy", []string{"deploy:prod"}, false},
		{"read_file", []string{"files:write"}, true},
		{"read_file", []string{"mcp:tools"}, false},
		{"echo", []string{"mcp:tools"}, true},
		{"echo", nil, false},
	}
	for _, c := range cases {
		if got := p.Listable(c.tool, c.granted); got != c.want {
			t.Errorf("Listable(%s, %v) = %v", c.tool, c.granted, got)
		}
	}
	open, err := scope.New(scope.Config{})
	if err != nil || !open.Listable("x", nil) {
		t.Errorf("no requirement: %v", err)
	}
}

// TestNamedToolWithoutOwnRequirementKeepsDefault: naming a tool only for
// its when rules does not drop the default.
func TestNamedToolWithoutOwnRequirementKeepsDefault(t *testing.T) {
	p, err := scope.New(scope.Config{
		Default: &scope.Requirement{All: []string{"base"}},
		Tools:   []scope.Tool{{Name: "deploy", When: []scope.When{{Args: map[string][]string{"env": {"prod"}}, Requirement: scope.Requirement{All: []string{"deploy:prod"}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := p.Check("deploy", []byte(`{"env":"dev"}`), nil)
	if d.Allowed || strings.Join(d.Missing, " ") != "base" {
		t.Errorf("got %+v", d)
	}
}
