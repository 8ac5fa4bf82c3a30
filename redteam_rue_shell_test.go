package gatehouse_test

import "testing"

// TestRedTeamRUE_ShellSpellingsOverTheWire: red team rue's shell
// spellings that reached a guarded command tool past the protected-path
// check after red team rub, seen by a real go-sdk client; one command per
// class (policy/testdata/bypass_shell_rue.yaml has every spelling and the
// near misses).
func TestRedTeamRUE_ShellSpellingsOverTheWire(t *testing.T) {
	shellOverTheWire(t, "rue", []string{
		"x=cd; $x /etc; cat shadow",                                  // a command name known at run time
		"x='a[$(cd /etc; cat shadow >&2)]'; echo $((x))",             // a subscript bash evaluates
		"x='$(cd /etc; cat shadow >&2)'; echo ${x@P}",                // prompt expansion
		"a[$(cd /etc; cat shadow >&2)]",                              // mvdan.cc/sh reads an assignment
		"pushd /tmp; DIRSTACK[1]=/etc; popd; cat shadow",             // the directory stack set
		"mapfile -C 'cd /etc;:' -c 1 arr < x; cat shadow",            // mapfile's callback
		"zsh -c 'cd /tmp; cd tmp etc; cat shadow'",                   // zsh's cd old new
		"zsh -c 'cat /etc/sha(d|x)ow'",                               // a zsh glob group
		"bash -O expand_aliases -c 'alias c=cd; c /etc; cat shadow'", // an alias
		"busybox ash -c 'cd /etc; cat shadow'",                       // a shell by another name
		"bash5 -c 'cd /etc; cat shadow'",                             // a shell with a version
	}, []string{
		"awk '{print $(NF-1)}' access.log", "$CC -o app main.c", "pushd sub && make && popd",
		"mapfile -t lines < list.txt", "zsh -c 'git status'", "alias ll='ls -l'; ll", "python3 -m pytest -q",
		"cd build && make", "EDITOR=vim git commit", "ssh host uptime",
	})
}
