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
	snippet := goSnippet(t, readmeSection(t, "## Require a passkey for a tool\n\n```go\n"))
	_, body, ok := strings.Cut(readFile(t, "example_test.go"), "func Example_requirePasskey() {")
	if !ok {
		t.Fatal("example_test.go has no Example_requirePasskey")
	}
	snippetInExample(t, snippet, body, "Example_requirePasskey", 8)
}

// readFile is the file's text; a missing file fails the test.
func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeSection is the README from just after start (a heading, possibly
// with the opening of its first snippet) to its end.
func readmeSection(t *testing.T, start string) string {
	t.Helper()
	_, section, ok := strings.Cut(readFile(t, "README.md"), start)
	if !ok {
		t.Fatalf("README has no %q", start)
	}
	return section
}

// goSnippet is section up to the fence that closes the code block it
// starts inside.
func goSnippet(t *testing.T, section string) string {
	t.Helper()
	snippet, _, ok := strings.Cut(section, "```")
	if !ok {
		t.Fatal("the snippet is not closed")
	}
	return snippet
}

// snippetInExample checks that every code line of snippet (comments aside)
// is a line of src, the source of the example that runs it, and that at
// least min lines were checked, so a README snippet cannot drift from code
// that compiles and works.
func snippetInExample(t *testing.T, snippet, src, example string, min int) {
	t.Helper()
	lines := map[string]bool{}
	for _, l := range strings.Split(src, "\n") {
		lines[code(l)] = true
	}
	checked := 0
	for _, l := range strings.Split(snippet, "\n") {
		if c := code(l); c != "" {
			checked++
			if !lines[c] {
				t.Errorf("README line not in %s: %s", example, strings.TrimSpace(l))
			}
		}
	}
	if checked < min {
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
