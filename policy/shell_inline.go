package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellEvalVars are the variables whose value the shell itself expands
// or runs: the prompts (PS4 with -x), PROMPT_COMMAND, and BASH_ENV / ENV,
// whose value is expanded (command substitution included) when a shell
// starts.
var shellEvalVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS4": true,
	"PROMPT_COMMAND": true, "BASH_ENV": true, "ENV": true}

// commandVars are the variables whose value programs run as a command
// line (git and man through sh -c, less's input filter): GIT_SSH_COMMAND,
// PAGER, EDITOR, ... Their values are analysed as scripts, as
// shellEvalVars' are.
var commandVars = map[string]bool{"GIT_SSH_COMMAND": true, "GIT_PAGER": true, "GIT_EDITOR": true,
	"GIT_SEQUENCE_EDITOR": true, "GIT_PROXY_COMMAND": true, "PAGER": true, "MANPAGER": true,
	"EDITOR": true, "VISUAL": true, "LESSOPEN": true, "LESSCLOSE": true, "SYSTEMD_PAGER": true}

// inline analyses a script that runs in the current shell (eval, trap,
// an alias's value): with the same working directories, so that its cd
// counts for the commands after it ("eval 'cd /etc'; cat shadow"), and
// again when the whole script has been read (a trap or an alias may run
// after a later cd).
func (c *shellCheck) inline(s string) {
	if c.depth >= maxShellDepth {
		c.refuse("shell scripts nested too deeply to analyse")
		return
	}
	c.depth++
	defer func() { c.depth-- }()
	files, ok := c.inlined[s]
	if !ok {
		// Parsed once: walked again (a loop's later round, finish), the
		// same nodes are kept once.
		files = parseShell(s)
		if c.inlined == nil {
			c.inlined = map[string][]*syntax.File{}
		}
		c.inlined[s] = files
	}
	for _, f := range files {
		syntax.Walk(f, c.visit)
		c.later(f)
	}
}

// later keeps a body (a function's, a trap's, an alias's, a loop's) to be
// walked again once the script has been read: it may run after any later
// cd (a loop's next round runs after the cd at its end), and every
// directory the script may be in is known only then. A node is kept once.
func (c *shellCheck) later(n syntax.Node) {
	if c.kept[n] {
		return
	}
	if c.kept == nil {
		c.kept = map[syntax.Node]bool{}
	}
	c.kept[n] = true
	c.deferred = append(c.deferred, n)
}

// maxRounds bounds the walks of the kept bodies: each round but the last
// adds a working directory, a taint or an option, of which there are few.
const maxRounds = maxShellCwds + 4

// finish walks the kept bodies again with every working directory the
// script may have had, until a round changes nothing (a loop whose body
// climbs one directory a round reaches / in a later round). Within a round
// each kept body is walked once: a kept body inside another is not entered
// from it, it is walked as its own. A nested inline script (eval in a
// loop) is parsed again once a round.
func (c *shellCheck) finish() {
	for round := 0; len(c.deferred) > 0 && c.reason == ""; round++ {
		if round == maxRounds {
			c.refuse("the script's loops and functions change its directories too often to follow")
			return
		}
		before := c.state()
		for i := 0; i < len(c.deferred) && c.reason == ""; i++ {
			root := c.deferred[i]
			syntax.Walk(root, func(n syntax.Node) bool {
				if n != root && c.kept[n] {
					return false
				}
				return c.visit(n)
			})
		}
		if c.state() == before {
			return
		}
	}
}

// shellState is what a walk can change that later commands read.
type shellState struct {
	cwds, tainted int
	home          string
	globAll       bool
}

func (c *shellCheck) state() shellState {
	return shellState{len(c.cwds), len(c.tainted), c.home, c.globAll}
}

// currentShell handles the commands that run a string in the current
// shell or as a command line: eval, trap, alias, env -S, and git's -c
// values that are commands ("alias.x=!cmd", core.pager, ...).
func (c *shellCheck) currentShell(name string, args []word) {
	switch name {
	case "eval":
		c.inline(joinText(args))
	case "trap":
		for _, a := range args {
			if !strings.HasPrefix(a.raw, "-") {
				c.inline(a.raw) // the action; the signal names parse as commands too
				return
			}
		}
	case "alias":
		for _, a := range args {
			if _, v, ok := strings.Cut(a.raw, "="); ok {
				c.inline(v)
			}
		}
	case "env":
		for i, a := range args {
			switch {
			case (a.raw == "-S" || a.raw == "--split-string") && i+1 < len(args):
				c.script(args[i+1].raw)
			case strings.HasPrefix(a.raw, "--split-string="):
				c.script(strings.TrimPrefix(a.raw, "--split-string="))
			case strings.HasPrefix(a.raw, "-S") && len(a.raw) > 2:
				c.script(a.raw[2:])
			}
		}
	case "git":
		for i, a := range args {
			if a.raw == "-c" && i+1 < len(args) {
				if _, v, ok := strings.Cut(args[i+1].raw, "="); ok {
					c.script(strings.TrimPrefix(v, "!"))
				}
			}
		}
	}
}

// evalVar analyses the value of a variable the shell expands or runs by
// itself (PS4='$(cd /etc; cat shadow)' bash -xc true).
// A value that cannot be resolved statically is refused: its text at run
// time may name a file (BASH_ENV=${x}dow sources /etc/shadow, HISTFILE
// is read by an interactive shell) or hold a command substitution.
func (c *shellCheck) evalVar(x *syntax.Assign) {
	if x.Name == nil || x.Value == nil {
		return
	}
	c.runVar(x.Name.Value, c.resolve(x.Value))
}

// runVar analyses the value w of a variable the shell or a program reads
// by itself (evalVar, and env's and sudo's NAME=value words).
func (c *shellCheck) runVar(name string, w word) {
	if !shellEvalVars[name] && !commandVars[name] && name != "HISTFILE" {
		return
	}
	if w.dyn != "" {
		c.refuse(w.dyn + " in the value of " + name + ", which the shell or a program reads by itself, cannot be resolved statically")
		return
	}
	if name != "HISTFILE" {
		c.script(w.raw)
	}
}
