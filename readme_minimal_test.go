package gatehouse_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEMinimalServer: the README's "A complete server" is
// examples/minimal/main.go byte for byte (that program compiles, and its
// test runs it over stdio), so the code users paste cannot rot. The README
// also keeps its install line and Go version.
func TestREADMEMinimalServer(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("examples/minimal/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## A complete server\n")
	if !ok {
		t.Fatal(`README has no "## A complete server" section`)
	}
	_, code, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatal("the section has no go snippet")
	}
	code, _, ok = strings.Cut(code, "```")
	if !ok {
		t.Fatal("the snippet is not closed")
	}
	if code != string(src) {
		t.Errorf("README's complete server differs from examples/minimal/main.go: copy the file into the README")
	}
	for _, want := range []string{"go get github.com/gatehouse-dev/gatehouse\n", "Go 1.26+"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q", want)
		}
	}
}

// TestREADMEStartsWithTheTwoCommands: the README's first code block is
// exactly the two setup commands.
func TestREADMEStartsWithTheTwoCommands(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```sh\n")
	if !ok {
		t.Fatal("README has no sh block")
	}
	block, _, _ := strings.Cut(rest, "```")
	var cmds []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		c, _, _ := strings.Cut(l, "#")
		cmds = append(cmds, strings.TrimSpace(c))
	}
	if len(cmds) != 2 || cmds[0] != "go run ./examples/quickstart" || cmds[1] != "go test ./..." {
		t.Errorf("README's first commands are %q, want go run ./examples/quickstart and go test ./...", cmds)
	}
}

// TestLicenseFiles: the license pkg.go.dev detects (Apache-2.0) and the
// NOTICE that credits the embedded AIP conformance vectors are present.
func TestLicenseFiles(t *testing.T) {
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(license), "Apache License") || !strings.Contains(string(license), "Version 2.0, January 2004") ||
		!strings.Contains(string(license), "END OF TERMS AND CONDITIONS") {
		t.Error("LICENSE is not the full Apache-2.0 text")
	}
	notice, err := os.ReadFile("NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Agent Identity Protocol", "internal/aipvectors/testdata", "Apache License, Version 2.0"} {
		if !strings.Contains(string(notice), want) {
			t.Errorf("NOTICE does not mention %q", want)
		}
	}
}
