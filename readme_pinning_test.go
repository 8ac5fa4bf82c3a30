package gatehouse_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEPinningSnippet: every code line of the README's "Pin tool
// definitions" snippet is a line of Example_pinning, which runs, and the
// refusal shown is the one the example prints.
func TestREADMEPinningSnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_pinning_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Pin tool definitions\n\n```go\n")
	if !ok {
		t.Fatal(`README has no "## Pin tool definitions" section starting with a go snippet`)
	}
	snippet, rest, ok := strings.Cut(section, "```")
	if !ok {
		t.Fatal("the snippet is not closed")
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(example), "\n") {
		lines[code(l)] = true
	}
	checked := 0
	for _, l := range strings.Split(snippet, "\n") {
		if c := code(l); c != "" {
			checked++
			if !lines[c] {
				t.Errorf("README line not in Example_pinning: %s", strings.TrimSpace(l))
			}
		}
	}
	if checked < 6 {
		t.Fatalf("only %d code lines found in the README snippet", checked)
	}
	_, out, _ := strings.Cut(string(example), "// deploy: -32013 Tool definition changed: ")
	reason, _, _ := strings.Cut(out, "\n")
	shown := strings.ReplaceAll(reason, `"`, `\"`)
	if reason == "" || !strings.Contains(rest, shown) {
		t.Fatalf("the README's refusal is not the example's output %q", reason)
	}
}
