package policy_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// TestRedTeamRUG_ShellCorpus walks testdata/bypass_shell_rug.yaml: a
// command name known only at run time that reads input the text gives
// (x=bash; echo ... | $x), or is mapfile, alias or hash; a command name
// that splits into words ($x after x='cd /etc', "$@", "${a[@]}", an
// unquoted substitution); hash -p; an alias's quoted arguments; shells
// by other names (osh, rc, elvish, nu, xonsh, pwsh, bash.exe, zsh-static);
// and ordinary commands that must pass.
func TestRedTeamRUG_ShellCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_shell_rug.yaml", corpusOpts)
}
