package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestAIPNamesAreExactNotGlobs: AIP tool names and denied methods are
// exact (§3.4, §4.2: "normalized IN denied_methods"); only allowed_methods
// has the wildcard "*". A "*" anywhere else never matched, so an author
// used to ACP globs who wrote a block rule for "delete_*" or denied
// "resources/*" (or "*") blocked nothing and the call ran. Such a
// policy is refused at load, at the line, with what to write instead.
func TestAIPNamesAreExactNotGlobs(t *testing.T) {
	bad := map[string]string{
		"block rule glob":     "spec:\n  allowed_tools: [delete_file]\n  tool_rules:\n    - tool: \"delete_*\"\n      action: block\n",
		"ask rule glob":       "spec:\n  tool_rules:\n    - tool: \"*\"\n      action: ask\n",
		"fullwidth star":      "spec:\n  tool_rules:\n    - tool: \"delete_＊\"\n      action: block\n",
		"denied glob":         "spec:\n  allowed_methods: ['*']\n  denied_methods: [\"resources/*\"]\n",
		"denied star":         "spec:\n  allowed_methods: ['*']\n  denied_methods: ['*']\n",
		"allowed tool star":   "spec:\n  allowed_tools: ['*']\n",
		"allowed tool glob":   "spec:\n  allowed_tools: ['read_*']\n",
		"allowed method glob": "spec:\n  allowed_methods: ['resources/*']\n",
	}
	for name, spec := range bad {
		_, err := policy.Parse([]byte(header + spec))
		var pe *policy.ParseError
		if !errors.As(err, &pe) || pe.Line == 0 || !strings.Contains(err.Error(), "not a wildcard") {
			t.Errorf("%s: %v, want a *policy.ParseError at the line saying '*' is not a wildcard", name, err)
		}
	}
	// Near misses: the one wildcard AIP defines, and exact names.
	for name, spec := range map[string]string{
		"allowed methods star": "spec:\n  allowed_methods: ['*']\n  denied_methods: [ping]\n",
		"exact names":          "spec:\n  allowed_tools: [delete_file]\n  tool_rules:\n    - tool: delete_file\n      action: block\n      allow_args: {q: \"^SELECT \\\\* FROM t$\"}\n",
	} {
		if _, err := policy.Parse([]byte(header + spec)); err != nil {
			t.Errorf("near miss %s: %v", name, err)
		}
	}
}

// TestACPArgNamesAreExact: ACP match.args names are exact (their values
// are globs); a '*' in a name named no argument, so a deny rule keyed on
// it applied to nothing.
func TestACPArgNamesAreExact(t *testing.T) {
	_, err := policy.Parse([]byte("version: \"1\"\ndefault_action: allow\nrules:\n  - match: {tool: run, args: {\"*\": \"*rm -rf*\"}}\n    action: deny\n"))
	var pe *policy.ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || !strings.Contains(err.Error(), "not a wildcard") {
		t.Errorf("'*' as an argument name: %v, want a *policy.ParseError at line 4", err)
	}
	if _, err := policy.Parse([]byte("version: \"1\"\ndefault_action: allow\nrules:\n  - match: {tool: run, args: {command: \"*rm -rf*\"}}\n    action: deny\n")); err != nil {
		t.Errorf("near miss, a glob value: %v", err)
	}
}
