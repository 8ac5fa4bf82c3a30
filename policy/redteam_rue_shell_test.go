package policy_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// TestRedTeamRUE_ShellCorpus walks testdata/bypass_shell_rue.yaml: a
// command name known only at run time ($x /etc), literal text holding a
// command substitution that bash evaluates later (a subscript in an
// arithmetic value, ${x@P}, ${!x}, test -v), a word mvdan.cc/sh reads as
// an array assignment (a[$(...)]), the directory stack set through
// DIRSTACK or zsh's dirs, mapfile -C, zsh's and ksh's "cd old new", zsh
// glob groups and setopt, aliases, shells by other names (ash, yash,
// fish, csh, bash5); and ordinary agent commands that must pass.
func TestRedTeamRUE_ShellCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_shell_rue.yaml", corpusOpts)
}
