package gatehouse_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEPasskeySnippet: every code line of the README's "Require a
// passkey for a tool" snippet (comments aside) is a line of
// Example_requirePasskey, which runs, so the snippet cannot drift from code
// that compiles and works.
func TestREADMEPasskeySnippet(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Require a passkey for a tool\n\n```go\n")
	if !ok {
		t.Fatal(`README has no "## Require a passkey for a tool" section starting with a go snippet`)
	}
	snippet, _, ok := strings.Cut(section, "```")
	if !ok {
		t.Fatal("the snippet is not closed")
	}
	_, body, ok := strings.Cut(string(example), "func Example_requirePasskey() {")
	if !ok {
		t.Fatal("example_test.go has no Example_requirePasskey")
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		lines[code(l)] = true
	}
	checked := 0
	for _, l := range strings.Split(snippet, "\n") {
		c := code(l)
		if c == "" {
			continue
		}
		checked++
		if !lines[c] {
			t.Errorf("README line not in Example_requirePasskey: %s", strings.TrimSpace(l))
		}
	}
	if checked < 8 {
		t.Fatalf("only %d code lines found in the README snippet", checked)
	}
}

// code is a line without indentation and trailing comment (a "//" outside
// a string literal; the snippets have no quotes inside strings).
func code(l string) string {
	if i := strings.Index(l, "//"); i >= 0 && strings.Count(l[:i], `"`)%2 == 0 {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}
