package main_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteamUnreadableInputIsAUsageError: a directory given where a file
// goes was reported by policy lint, scopes lint and audit verify as a
// finding (exit 1: "invalid policy", "broken chain"), which a script reads
// as a tampered log or a bad policy; the contract says an input that
// cannot be read is exit 2, as dlp scan and policy test already had it.
func TestRedteamUnreadableInputIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	pol := write(t, dir, "p.yaml", "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec:\n  allowed_tools: [a]\n")
	mkdir(t, sub)
	for _, args := range [][]string{
		{"policy", "lint", sub},
		{"policy", "lint", pol, sub},
		{"scopes", "lint", sub},
		{"audit", "verify", sub},
		{"policy", "test", sub},
		{"policy", "test", pol, sub},
		{"dlp", "scan", sub},
	} {
		gh(t, dir, "", args...).want(t, 2, "is a directory")
	}
	// Near misses: the same commands on readable input of the wrong
	// content are findings (1).
	bad := write(t, dir, "bad.yaml", "kind: Nothing\n")
	for _, args := range [][]string{
		{"policy", "lint", bad},
		{"scopes", "lint", bad},
		{"audit", "verify", bad},
	} {
		gh(t, dir, "", args...).want(t, 1)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
