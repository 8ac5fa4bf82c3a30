package policy

import (
	"path"
	"slices"
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
		"chgrp": "R", "ls": "R", "zip": "rR", "diff": "rR", "scp": "r", "gzip": "r", "gunzip": "r", "chattr": "R",
		"setfacl": "R",
		"rg":      "", "ag": "", "ack": "", "find": "", "du": "", "tree": "", "tar": "", "rsync": "", "pax": "",
	}
	defaultsToCwd = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
		"ack": true, "find": true, "du": true, "tree": true, "ls": true}
	shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
		"ash": true, "hush": true, "yash": true, "rbash": true, "posh": true, "lksh": true, "oksh": true,
		"pdksh": true, "fish": true, "csh": true, "tcsh": true,
		"osh": true, "ysh": true, "oil": true, "brush": true, "rc": true, "es": true, "elvish": true, "nu": true,
		"xonsh": true, "ion": true, "murex": true, "pwsh": true, "powershell": true}
)

func (c *shellCheck) call(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		return // assignments only; a later use of the variable is refused
	}
	// A prefix assignment (CDPATH=/ cd etc) is in effect for the command
	// it prefixes: followed before the command, not after.
	for _, as := range x.Assigns {
		c.assign(as)
		if as.Name != nil && pathVars[as.Name.Value] {
			c.taint(as.Name.Value)
		}
	}
	words := make([]word, len(x.Args))
	for i, a := range x.Args {
		words[i] = c.resolve(a)
	}
	if words[0].dyn != "" {
		c.splitName(x.Args[0])
		if c.fed[x] {
			c.shell("sh", words[1:]) // x=bash; echo 'cd /etc' | $x: a shell reading its input
		}
	}
	c.command(words)
}

// command analyses one simple command, its name resolved.
func (c *shellCheck) command(words []word) {
	if len(words) == 0 || c.reason != "" {
		return
	}
	name := path.Base(strings.ToLower(words[0].text))
	if name == "busybox" && len(words) > 1 {
		c.command(words[1:]) // busybox tar, busybox sh: the applet is the command
		return
	}
	if dirs := runDirs(name, words[1:]); len(dirs) > 0 {
		c.cd(dirs) // env -C /etc cat shadow: the command runs there
		if c.reason != "" {
			return
		}
	}
	if prefixCommands[name] {
		// env, sudo -u root, timeout 5, nice -n 5, ...: any later word
		// may be the command they run; each is analysed as one.
		if name == "env" {
			c.currentShell(name, words[1:]) // env -S 'sh -c ...'
		}
		c.loginShell(name, words[1:])
		for i := 1; i < len(words); i++ {
			c.envWord(words[i]) // env BASHOPTS=dotglob bash -c ..., sudo HOME=/etc ...
			if !strings.HasPrefix(words[i].text, "-") && !strings.Contains(words[i].text, "=") {
				c.command(words[i:])
			}
		}
		return
	}
	args := words[1:]
	if words[0].dyn != "" {
		c.unknownCommand(args) // $x /etc: the name may be cd, eval, ...
	}
	if v, ok := c.aliases[name]; ok {
		c.inline(v + " " + quoteText(args)) // alias c=cd; c /etc
	}
	if c.reason != "" {
		return
	}
	if c.autocd && len(args) == 0 && name != "cd" {
		c.cd(words) // autocd: a directory as a command is a cd into it
	}
	c.runners(name, args)
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
	c.copyInto(name, args)
	c.relocate(name, args)
	c.treeWrite(name, args)
	if flags, ok := recursiveFlags[name]; ok {
		c.recursive(name, flags, args)
	}
}

// setters are the commands that set variables named by their arguments.
var setters = map[string]bool{"read": true, "mapfile": true, "readarray": true, "getopts": true,
	"export": true, "declare": true, "typeset": true, "local": true}

// byName applies what specific commands mean for paths.
func (c *shellCheck) byName(name string, args []word) {
	if name == "mapfile" || name == "readarray" {
		c.callback(args) // -C 'cd /etc': run in this shell
	}
	switch {
	case setters[name] || name == "printf" && len(args) > 1 && strings.HasPrefix(args[0].text, "-v"):
		for _, a := range args {
			if a.dyn != "" {
				c.setVar("") // read "$n", printf -v "$n": a name known only at run time
				continue
			}
			v, _, _ := strings.Cut(strings.TrimLeft(a.text, "-"), "=")
			v, _, _ = strings.Cut(v, "[")
			for _, n := range []string{v, strings.TrimPrefix(v, "v")} { // -vHOME
				if n != "" {
					c.setVar(n)
				}
			}
		}
	case name == "shopt":
		for _, a := range args {
			c.shopt(a.text)
		}
	case name == "cd" || name == "pushd":
		c.cd(args)
	case name == "popd":
		c.dirStack()
	case name == "dirs" && slices.ContainsFunc(args, func(a word) bool { return !strings.HasPrefix(a.text, "-") }):
		c.lose("dirstack") // zsh: dirs DIR... sets the stack
	case name == "hash":
		c.hash(args)
	case name == "setopt" || name == "unsetopt":
		c.setOptions(args)
	case name == "xargs" || name == "parallel":
		c.refuse(name + " builds the arguments of a command from its input at run time")
	case name == "eval" || name == "trap" || name == "alias" || name == "env" || name == "git":
		c.currentShell(name, args)
		if name == "alias" {
			c.alias(args)
		}
	case isShell(name):
		c.shell(name, args)
	case name == "source" || name == ".":
		if len(args) > 0 && c.runtimeFile(args[0].text) {
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
	if a.glob && pos > 0 && c.globAll {
		c.refuse("a shell pattern after dotglob or globstar was set (shopt, bash -O, GLOBIGNORE, BASHOPTS) can match any file")
		return
	}
	for _, cwd := range c.cwds {
		env, err := normalize.NewPathEnv(c.home, cwd)
		if err != nil {
			c.refuse("the working directory cannot be followed")
			return
		}
		for _, text := range append([]string{a.text}, a.alts...) {
			if r := c.p.scanReason(env, text); r != "" {
				c.refuse(r)
				return
			}
			if a.glob && pos > 0 && c.p.shellGlobHit(env, text) {
				c.refuse("a shell pattern that can match a protected path")
				return
			}
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
	var ops []string
	for _, a := range args {
		if stackArg(a.text) {
			c.dirStack() // pushd +1, zsh's cd -1: a stack entry
			continue
		}
		if !strings.HasPrefix(a.text, "-") || a.text == "-" {
			ops = append(ops, a.text)
		}
	}
	if len(ops) > 0 {
		target = ops[0]
	}
	if len(ops) == 2 {
		c.cdReplace(ops[0], ops[1])
	}
	if c.reason != "" {
		return
	}
	switch {
	case (target == "" || target == "~") && c.tainted["HOME"],
		target == "-" && c.tainted["OLDPWD"],
		target != "" && !strings.HasPrefix(target, "/") && c.tainted["CDPATH"]:
		c.refuse("cd after a path variable ($HOME, $CDPATH, $OLDPWD) was changed")
		return
	case c.cdVars && isName(target):
		c.refuse("cd into a name after cdable_vars may have been set: the directory may be a variable's value")
		return
	}
	if target != "" && target != "-" && target != "~" && strings.ContainsAny(target, "*?[") && c.absAncestor(target) {
		// cd /e?c: the shell expands the pattern; the directory it names
		// is not followed here.
		c.refuse("cd into a pattern that can match a directory that holds a protected path")
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

// cdReplace follows zsh's and ksh's "cd old new": the working directory
// with its first old replaced by new ("cd /tmp; cd tmp etc" is /etc).
func (c *shellCheck) cdReplace(old, repl string) {
	if old == "" {
		return
	}
	for _, cwd := range c.cwds {
		if strings.Contains(cwd, old) {
			c.cd([]word{{text: strings.Replace(cwd, old, repl, 1)}})
			if c.reason != "" {
				return
			}
		}
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

// quoteText joins the values of args, each quoted as one word, after an
// alias's or hash's value (alias c='bash -c'; c 'cd /etc; cat shadow').
func quoteText(args []word) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = shellQuote(a.raw)
	}
	return strings.Join(parts, " ")
}

// joinText joins the values of args as eval does.
func joinText(args []word) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.raw
	}
	return strings.Join(parts, " ")
}

// globShopt are the shopt options (and their -O spelling's values) that
// make a pattern match dot files or cross directories; a name that is not
// an option is an error in bash, so any mention counts.
var globShopt = map[string]bool{"dotglob": true, "globstar": true}

// script analyses a script given as an argument (eval, sh -c).
func (c *shellCheck) script(s string) {
	if c.depth >= maxShellDepth {
		c.refuse("shell scripts nested too deeply to analyse")
		return
	}
	s = c.inherit(s)
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

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// envWord follows a NAME=value word of env or sudo, which sets the
// variable for the command they run: as a prefix assignment would.
func (c *shellCheck) envWord(w word) {
	name, value, ok := strings.Cut(w.raw, "=")
	if !ok || !isName(name) {
		return
	}
	c.runVar(name, word{raw: value, dyn: w.dyn}) // env PAGER='...' man ls
	switch {
	case name == "HOME" && w.dyn == "":
		c.setHome(word{text: value})
		c.taint(name)
	case name == "HOME" || pathVars[name]:
		c.lose(name)
	case globVars[name]:
		c.setVar(name)
	}
}

// chdirOpts are, per command that runs another, its options that name
// the directory the command runs in (env -C, sudo -D, ...), short ones
// first.
var chdirOpts = map[string][]string{
	"env": {"-C", "--chdir"}, "sudo": {"-D", "--chdir"}, "nsenter": {"-w", "--wd"},
	"unshare": {"--wd"}, "bwrap": {"--chdir"}, "systemd-run": {"--working-directory"},
	"start-stop-daemon": {"-d", "--chdir"},
}

// runDirs returns, as one cd's arguments, the directory a command runner
// names for the command it runs: "-C DIR", "-CDIR", "-iC DIR",
// "--chdir=DIR", "--chdir DIR". Every word is looked at, since the
// runners' own options take values (nsenter -t 1, bwrap --bind / /): an
// option of the command run that reads alike only adds a directory.
func runDirs(name string, args []word) []word {
	opts, ok := chdirOpts[name]
	if !ok {
		return nil
	}
	for i, a := range args {
		t := a.text
		for _, o := range opts {
			switch {
			case t == o && i+1 < len(args):
				return []word{args[i+1]}
			case strings.HasPrefix(t, "--") && strings.HasPrefix(t, o+"="):
				return []word{{text: t[len(o)+1:]}}
			case len(o) == 2 && !strings.HasPrefix(t, "--") && strings.HasPrefix(t, "-") && strings.IndexByte(t, o[1]) > 0:
				// a cluster: the option's value is the rest, or the next word
				rest := t[strings.IndexByte(t, o[1])+1:]
				if rest != "" {
					return []word{{text: rest}}
				}
				if i+1 < len(args) {
					return []word{args[i+1]}
				}
			}
		}
	}
	return nil
}
