package gatehouse_test

import (
	"strings"
	"testing"
)

// TestREADMEPinningSnippet: every code line of the README's "Pin tool
// definitions" snippet is a line of Example_pinning, which runs, and the
// refusal shown is the one the example prints.
func TestREADMEPinningSnippet(t *testing.T) {
	section := readmeSection(t, "## Pin tool definitions\n\n```go\n")
	snippet := goSnippet(t, section)
	rest := section[len(snippet):]
	example := readFile(t, "example_pinning_test.go")
	snippetInExample(t, snippet, example, "Example_pinning", 6)
	_, out, _ := strings.Cut(example, "// deploy: -32013 Tool definition changed: ")
	reason, _, _ := strings.Cut(out, "\n")
	shown := strings.ReplaceAll(reason, `"`, `\"`)
	if reason == "" || !strings.Contains(rest, shown) {
		t.Fatalf("the README's refusal is not the example's output %q", reason)
	}
}
