package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestWildcardRefusalSpellings: the load-time refusal of a '*' in a name
// that is exact holds for every way YAML or Unicode can write a '*': a
// fullwidth or small asterisk (NFKC folds both to '*'), a YAML escape, a
// multi-line scalar, an anchor and its alias. ACP match.args names
// checked the raw text, so a deny rule keyed on "＊" (or "﹡") loaded and
// applied to nothing, the very case that refusal is for.
func TestWildcardRefusalSpellings(t *testing.T) {
	const acp = "version: \"1\"\ndefault_action: allow\nrules:\n"
	bad := map[string]string{
		"acp arg fullwidth":   acp + "  - match: {tool: run, args: {\"＊\": \"*rm -rf*\"}}\n    action: deny\n",
		"acp arg small":       acp + "  - match: {tool: run, args: {\"cmd﹡\": \"*rm -rf*\"}}\n    action: deny\n",
		"acp arg escape":      acp + "  - match: {tool: run, args: {\"\\x2a\": \"*rm -rf*\"}}\n    action: deny\n",
		"acp arg zero width":  acp + "  - match: {tool: run, args: {\"\\u200b＊\": \"*rm -rf*\"}}\n    action: deny\n",
		"aip escape":          header + "spec:\n  tool_rules:\n    - tool: \"delete_\\u002a\"\n      action: block\n",
		"aip small":           header + "spec:\n  tool_rules:\n    - tool: \"delete_﹡\"\n      action: block\n",
		"aip folded scalar":   header + "spec:\n  tool_rules:\n    - tool: >-\n        delete_\n        *\n      action: block\n",
		"aip anchor":          header + "spec:\n  allowed_tools: [&t \"delete_*\"]\n  tool_rules:\n    - tool: delete_file\n      action: allow\n",
		"aip denied fullwidt": header + "spec:\n  allowed_methods: ['*']\n  denied_methods: [\"resources/＊\"]\n",
	}
	for name, doc := range bad {
		_, err := policy.Parse([]byte(doc))
		var pe *policy.ParseError
		if !errors.As(err, &pe) || pe.Line == 0 || !strings.Contains(err.Error(), "not a wildcard") {
			t.Errorf("%s: %v, want a *policy.ParseError at the line saying '*' is not a wildcard", name, err)
		}
	}
	// An alias of an anchored name is not a string there: refused too.
	if _, err := policy.Parse([]byte(header + "spec:\n  allowed_tools: [&t \"read_file\", *t]\n")); err == nil {
		t.Errorf("an alias in allowed_tools loaded")
	}
	// Near misses: other stars are other characters, and a glob value.
	for name, doc := range map[string]string{
		"acp arg asterisk operator": acp + "  - match: {tool: run, args: {\"a∗b\": \"x\"}}\n    action: deny\n",
		"acp glob value":            acp + "  - match: {tool: run, args: {cmd: \"＊rm＊\"}}\n    action: deny\n",
	} {
		if _, err := policy.Parse([]byte(doc)); err != nil {
			t.Errorf("near miss %s: %v", name, err)
		}
	}
}
