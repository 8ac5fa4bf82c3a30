package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestYAMLTabAndIndentErrors: a tab in indentation says "tab" and a line
// indented wrong is named by its own line (yaml.v3 named the line of the
// enclosing mapping), from go-yaml's structured errors; tabs YAML allows
// (between a key and its value, inside a quoted string) still parse.
func TestYAMLTabAndIndentErrors(t *testing.T) {
	bad := []struct {
		name, src string
		line      int
		contains  string
	}{
		{"tab indents a key", header + "spec:\n\tallowed_tools: [a]\n", 6, "tab"},
		{"tab after spaces", header + "spec:\n  allowed_tools: [a]\n \tmode: enforce\n", 7, "tab"},
		{"tab indents a list item", header + "spec:\n  allowed_tools:\n\t- a\n", 7, "tab"},
		{"tab in a tool rule", header + "spec:\n  tool_rules:\n    - tool: a\n\t  action: allow\n", 8, "tab"},
		{"dedented key", header + "spec:\n  allowed_tools: [a]\n mode: enforce\n", 7, "indentation"},
		{"over-indented key", header + "spec:\n  allowed_tools: [a]\n    mode: enforce\n", 7, "indentation"},
		{"dedented rule field", header + "spec:\n  tool_rules:\n    - tool: a\n     action: allow\n", 8, "indentation"},
	}
	for _, c := range bad {
		_, err := policy.Parse([]byte(c.src))
		var pe *policy.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: got %v, want a *policy.ParseError", c.name, err)
			continue
		}
		if pe.Line != c.line || !strings.Contains(pe.Msg, c.contains) {
			t.Errorf("%s: %q at line %d, want line %d saying %q", c.name, pe.Msg, pe.Line, c.line, c.contains)
		}
	}
	fine := map[string]string{
		"tab between key and value": header + "spec:\n  mode:\tenforce\n  allowed_tools: [a]\n",
		"tab inside a quoted tool":  header + "spec:\n  allowed_tools: [\"a\tb\"]\n",
		"tab after a flow comma":    header + "spec:\n  allowed_tools: [a,\tb]\n",
		"trailing tab":              header + "spec:\n  allowed_tools: [a]\t\n",
	}
	for name, src := range fine {
		if _, err := policy.Parse([]byte(src)); err != nil {
			t.Errorf("%s: %v, want it to parse", name, err)
		}
	}
}
