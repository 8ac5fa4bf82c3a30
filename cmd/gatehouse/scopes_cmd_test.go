package main_test

import (
	"path/filepath"
	"testing"
)

func TestScopesLint(t *testing.T) {
	dir := t.TempDir()
	good, _ := filepath.Abs("../../scope/testdata/good.yaml")
	gh(t, dir, "", "scopes", "lint", good).want(t, 0, good+": ok")
	twice, _ := filepath.Abs("../../scope/testdata/bad/tool-twice.yaml")
	gh(t, dir, "", "scopes", "lint", good, twice).want(t, 1, good+": ok", twice+":9:11: error:", "named twice")
	syntax, _ := filepath.Abs("../../scope/testdata/bad/syntax.yaml")
	gh(t, dir, "", "scopes", "lint", syntax).want(t, 1, syntax+":", "error:")
	gh(t, dir, "", "scopes", "lint", filepath.Join(dir, "missing.yaml")).want(t, 2, "no such file")
	gh(t, dir, "", "scopes", "lint").want(t, 2, "no scopes FILE given")
}
