package gatehouse_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/scope"
)

// TestREADMEScopesSnippet: the README's "Scopes per tool" document parses
// and means what the section says.
func TestREADMEScopesSnippet(t *testing.T) {
	section := readmeSection(t, "## Scopes per tool\n")
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
	snippetInExample(t, goSnippet(t, gosrc), readFile(t, "example_scopes_test.go"), "Example_scopesPerTool", 4)
}
