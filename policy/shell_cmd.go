package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// inertCommands never open their arguments as files: an argument of theirs
// that cannot be resolved statically (echo $FOO) is not refused.
var inertCommands = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "test": true, "[": true,
	"exit": true, "return": true, "sleep": true, "seq": true, "expr": true, "shift": true,
	"wait": true, "read": true, "set": true, "unset": true, "let": true,
}

// prefixCommands run the command that follows their own options.
var prefixCommands = map[string]bool{
	"env": true, "command": true, "builtin": true, "exec": true, "nice": true, "nohup": true,
	"sudo": true, "doas": true, "time": true, "stdbuf": true, "timeout": true, "ionice": true,
}

// recursiveFlags lists, per command, the short flags and long options that
// make it walk directories; "" means it always does. defaultsToCwd marks
// the commands that walk the working directory when given no operand.
var (
	recursiveFlags = map[string]string{
		"grep": "rR", "egrep": "rR", "fgrep": "rR", "cp": "rRa", "rm": "rR", "chmod": "R", "chown": "R",
		"chgrp": "R", "ls": "R", "zip": "r", "scp": "r",
		"rg": "", "ag": "", "ack": "", "find": "", "du": "", "tree": "", "tar": "", "rsync": "",
	}
	defaultsToCwd = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
		"ack": true, "find": true, "du": true, "tree": true, "ls": true}
	shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true}
)

func (c *shellCheck) call(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		return // assignments only; a later use of the variable is refused
	}
	words := make([]word, len(x.Args))
	for i, a := range x.Args {
		words[i] = c.resolve(a)
	}
	c.command(words)
}

// command analyses one simple command, its name resolved.
func (c *shellCheck) command(words []word) {
	if len(words) == 0 || c.reason != "" {
		return
	}
	name := path.Base(strings.ToLower(words[0].text))
	if prefixCommands[name] {
		// env, sudo -u root, timeout 5, nice -n 5, ...: any later word
		// may be the command they run; each is analysed as one.
		for i := 1; i < len(words); i++ {
			if !strings.HasPrefix(words[i].text, "-") && !strings.Contains(words[i].text, "=") {
				c.command(words[i:])
			}
		}
		return
	}
	args := words[1:]
	for _, a := range args {
		if a.dyn != "" && !inertCommands[name] {
			c.refuse(a.dyn + " in an argument of " + name + " cannot be resolved statically")
			return
		}
	}
	for i, a := range words {
		c.match(a, i) // the command name too: running a protected file reads it
	}
	c.byName(name, args)
	if flags, ok := recursiveFlags[name]; ok {
		c.recursive(name, flags, args)
	}
}

// setters are the commands that set variables named by their arguments.
var setters = map[string]bool{"read": true, "mapfile": true, "readarray": true, "getopts": true,
	"export": true, "declare": true, "typeset": true, "local": true}

// byName applies what specific commands mean for paths.
func (c *shellCheck) byName(name string, args []word) {
	switch {
	case setters[name] || name == "printf" && len(args) > 1 && args[0].text == "-v":
		for _, a := range args {
			v, _, _ := strings.Cut(strings.TrimLeft(a.text, "-"), "=")
			if pathVars[v] {
				c.taint(v)
			}
		}
	case name == "cd" || name == "pushd":
		c.cd(args)
	case name == "xargs" || name == "parallel":
		c.refuse(name + " builds the arguments of a command from its input at run time")
	case name == "eval":
		c.script(joinText(args))
	case shells[name] || name == "busybox":
		c.shell(name, args)
	case name == "source" || name == ".":
		if len(args) > 0 && (strings.HasPrefix(args[0].text, "/dev/") || strings.HasPrefix(args[0].text, "/proc/")) {
			c.refuse(name + " runs commands read at run time")
		}
	}
}

// match checks a resolved argument against the protected paths from every
// working directory the script may have; an unquoted pattern is matched as
// the shell would expand it in that directory (cat .* reads .env), except
// in the command name (pos 0), where ".*" is as often a lone regex.
func (c *shellCheck) match(a word, pos int) {
	if a.dyn != "" || a.text == "" {
		return
	}
	for _, cwd := range c.cwds {
		env, err := normalize.NewPathEnv(c.home, cwd)
		if err != nil {
			c.refuse("the working directory cannot be followed")
			return
		}
		if r := c.p.scanReason(env, a.text); r != "" {
			c.refuse(r)
			return
		}
		if a.glob && pos > 0 && c.p.shellGlobHit(env, a.text) {
			c.refuse("a shell pattern that can match a protected path")
			return
		}
	}
}

func (c *shellCheck) redirect(r *syntax.Redirect) {
	if r.Word == nil || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
		return
	}
	w := c.resolve(r.Word)
	if (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && (w.text == "-" || isDigitsOnly(w.text)) {
		return
	}
	if w.dyn != "" {
		c.refuse(w.dyn + " in a redirection target cannot be resolved statically")
		return
	}
	c.match(w, 1)
}

func isDigitsOnly(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// cd follows the working directory: every directory the script may be in
// is kept, since a cd joined by ";" or "||" may or may not have run.
func (c *shellCheck) cd(args []word) {
	target := ""
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") || a.text == "-" {
			target = a.text
			break
		}
	}
	switch {
	case (target == "" || target == "~") && c.tainted["HOME"],
		target == "-" && c.tainted["OLDPWD"],
		target != "" && !strings.HasPrefix(target, "/") && c.tainted["CDPATH"]:
		c.refuse("cd after a path variable ($HOME, $CDPATH, $OLDPWD) was changed")
		return
	}
	var next []string
	for _, cwd := range c.cwds {
		switch {
		case target == "" || target == "~":
			next = append(next, c.home)
		case target == "-":
			next = append(next, c.cwds...)
		default:
			env, err := normalize.NewPathEnv(c.home, cwd)
			if err != nil {
				c.refuse("the working directory cannot be followed")
				return
			}
			t, refuse := env.Resolve(target)
			if refuse != "" {
				c.refuse("cd into a directory that " + refuse)
				return
			}
			next = append(next, t)
		}
	}
	for _, d := range next {
		if d != "" && !containsString(c.cwds, d) {
			c.cwds = append(c.cwds, d)
		}
	}
	if len(c.cwds) > maxShellCwds {
		c.refuse("too many directory changes to follow")
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinText(args []word) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.text
	}
	return strings.Join(parts, " ")
}

// script analyses a script given as an argument (eval, sh -c).
func (c *shellCheck) script(s string) {
	if c.depth >= maxShellDepth {
		c.refuse("shell scripts nested too deeply to analyse")
		return
	}
	for _, cwd := range c.cwds {
		env, err := normalize.NewPathEnv(c.home, cwd)
		if err != nil {
			c.refuse("the working directory cannot be followed")
			return
		}
		if r := c.p.textReason(env, s, c.depth+1); r != "" {
			c.refuse(r)
			return
		}
	}
}

// shell handles sh/bash/...: -c runs its script argument (analysed), no
// operand reads commands from standard input (refused), a script file is
// not visible here.
func (c *shellCheck) shell(name string, args []word) {
	if name == "busybox" {
		if len(args) == 0 || !shells[path.Base(args[0].text)] {
			return
		}
		args = args[1:]
	}
	for i, a := range args {
		if strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.ContainsRune(a.text, 'c') {
			if i+1 < len(args) {
				c.script(args[i+1].text)
			}
			return
		}
		if a.text == "-s" || !strings.HasPrefix(a.text, "-") {
			if a.text == "-s" || strings.HasPrefix(a.text, "/dev/") || strings.HasPrefix(a.text, "/proc/") {
				break
			}
			return
		}
	}
	c.refuse(name + " runs commands read from its input at run time")
}
