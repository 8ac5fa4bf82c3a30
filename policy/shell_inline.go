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
	for _, f := range parseShell(s) {
		syntax.Walk(f, c.visit)
		c.later(f)
	}
}

// later keeps a body (a function's, a trap's, an alias's) to be walked
// again once the script has been read: it may run after any later cd,
// and every directory the script may be in is known only then. Each body
// is walked twice at most, and a nested inline script (eval in a
// function) is parsed again at most 2^maxShellDepth times, so the work
// stays proportional to the text.
func (c *shellCheck) later(n syntax.Node) {
	c.deferred = append(c.deferred, n)
}

// finish walks the kept bodies again with every working directory the
// script may have had.
func (c *shellCheck) finish() {
	for i := 0; i < len(c.deferred) && c.reason == ""; i++ {
		syntax.Walk(c.deferred[i], c.visit)
	}
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
func (c *shellCheck) evalVar(x *syntax.Assign) {
	if x.Name == nil || x.Value == nil || !shellEvalVars[x.Name.Value] {
		return
	}
	c.script(c.resolve(x.Value).raw)
}
