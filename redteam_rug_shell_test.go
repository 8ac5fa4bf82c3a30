package gatehouse_test

import "testing"

// TestRedTeamRUG_ShellSpellingsOverTheWire: red team rug's shell
// spellings that reached a guarded command tool past the protected-path
// check after red team rue, seen by a real go-sdk client; one command per
// class (policy/testdata/bypass_shell_rug.yaml has every spelling and the
// near misses).
func TestRedTeamRUG_ShellSpellingsOverTheWire(t *testing.T) {
	shellOverTheWire(t, "rug", []string{
		"x=bash; echo 'cd /etc; cat shadow' | $x",           // a run-time name reading its input
		"x='eval cd /etc;'; $x ls; cat shadow",              // a name that splits into words
		"set -- cd /etc; \"$@\"; cat shadow",                // "$@" as the command
		"hash -p /bin/bash ls; ls -c 'cd /etc; cat shadow'", // hash -p
		"alias c='bash -c'; c 'cd /etc; cat shadow'",        // an alias's quoted argument
		"pwsh -c 'Set-Location /etc; Get-Content shadow'",   // PowerShell
		"nu -c 'cd /etc; cat shadow'",                       // a shell by another name
		"bash.static -c 'cd /etc; cat shadow'",              // a shell's packaged name
	}, []string{
		"$CC -o app main.c", "$CC --version", "${MAKE:-make} -j4", "\"$GO\" test ./...", "hash -r; ls",
		"alias g='git log'; g --oneline -5", "pwsh -c 'Get-Process'", "echo es rc nu", "cat .bashrc",
	})
}
