package gatehouse_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/scope"
)

// TestREADMEScopesSnippet: the README's "Scopes per tool" document parses
// and means what the section says.
func TestREADMEScopesSnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Scopes per tool\n")
	if !ok {
		t.Fatal(`README has no "## Scopes per tool" section`)
	}
	_, doc, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("no yaml snippet")
	}
	doc, _, _ = strings.Cut(doc, "```")
	p, err := scope.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Check("deploy", []byte(`{"env":"Production"}`), []string{"deploy:write"})
	if err != nil || d.Allowed || strings.Join(d.Required, " ") != "deploy:write deploy:prod" {
		t.Errorf("deploy to production: %+v %v", d, err)
	}
	if !p.Listable("status", []string{"mcp:tools"}) || p.Listable("admin_reset", []string{"mcp:tools"}) {
		t.Error("default and admin_reset do not behave as the section says")
	}
	// Every Go line of the snippet is a line of Example_scopesPerTool.
	_, gosrc, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatal("no go snippet")
	}
	gosrc, _, _ = strings.Cut(gosrc, "```")
	example, err := os.ReadFile("example_scopes_test.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(example), "\n") {
		lines[code(l)] = true
	}
	n := 0
	for _, l := range strings.Split(gosrc, "\n") {
		if c := code(l); c != "" {
			n++
			if !lines[c] {
				t.Errorf("README line not in Example_scopesPerTool: %s", c)
			}
		}
	}
	if n < 4 {
		t.Fatalf("%d code lines", n)
	}
}
