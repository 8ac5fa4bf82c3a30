package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// isShell reports whether name (lower case, no directory) is a shell that
// runs its -c operand or its input as commands: sh, bash, zsh, ..., also
// with a version after it (bash5, bash-5.2, ksh93).
func isShell(name string) bool {
	return shells[unversioned(name)]
}

// unversioned removes a version from the end of a command name: "bash5",
// "bash-5.2" and "ksh93" are bash, bash and ksh. A version ends with a
// digit ("sh-" is no sh); the prefilter's isShellCommand reads names alike.
func unversioned(name string) string {
	for _, x := range shellSuffixes {
		name = strings.TrimSuffix(name, x)
	}
	if n := len(name); n > 1 && '0' <= name[n-1] && name[n-1] <= '9' {
		return strings.TrimRight(name, "0123456789.-")
	}
	return name
}

// shellSuffixes end names that packages and other systems give shells
// (bash.exe, bash.static, zsh-static, sh.distrib), removed like a version.
var shellSuffixes = [...]string{".exe", ".static", "-static", ".distrib"}

// unknownCommand analyses a command whose name is known only at run time
// ($x /etc, "$(echo cd)" /etc, ${c}d /etc, $e 'cd /etc'): it may be any
// command, so it is analysed as each builtin that changes what later
// commands name (cd, eval, source, shopt, declare) and, given a -c, as a
// shell.
func (c *shellCheck) unknownCommand(args []word) {
	for _, n := range [...]string{"cd", "eval", "source", "shopt", "declare", "mapfile", "alias", "hash"} {
		if c.reason != "" {
			return
		}
		c.byName(n, args)
	}
	if c.reason == "" && hasScriptFlag(args) {
		c.shell("sh", args) // its input, when the text gives it: see call
	}
}

// splitName refuses a command name whose expansion bash splits into
// words not known here, so that its command and arguments are not the
// words this analysis reads: "$@" and "${a[@]}" (set -- cd /etc; "$@"),
// an unquoted command substitution or ${!x}, and an unquoted variable
// the script may set (x='eval cd /etc;'; $x ls). A variable the text
// never names otherwise ($CC -o app main.c) comes from the environment
// the tool runs in, not from the text; "$(...)" and "$x" quoted are one
// word, analysed by unknownCommand.
func (c *shellCheck) splitName(w *syntax.Word) {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.ParamExp:
			switch {
			case listParam(x) || x.Excl || x.Param == nil:
				c.refuse("a command name that expands to words not known statically ($@, an array, ${!x})")
			case c.anyVar || c.mayBeSet(x.Param.Value):
				c.refuse("a command name from $" + x.Param.Value + ", which this script sets, splits into words not known statically")
			}
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			c.refuse("a command name from an unquoted substitution splits into words not known statically")
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if pe, ok := q.(*syntax.ParamExp); ok && listParam(pe) {
					c.refuse("a command name that expands to words not known statically (\"$@\", \"${a[@]}\")")
				}
			}
		}
		if c.reason != "" {
			return
		}
	}
}

// listParam reports whether a parameter expansion is a list of words:
// $@, $*, ${a[@]}, ${a[*]}, ${!a[@]}.
func listParam(x *syntax.ParamExp) bool {
	if x.Param != nil && (x.Param.Value == "@" || x.Param.Value == "*") {
		return true
	}
	if x.Index != nil {
		if w, ok := x.Index.(*syntax.Word); ok && (w.Lit() == "@" || w.Lit() == "*") {
			return true
		}
	}
	return false
}

// mayBeSet reports whether the text being analysed may set the variable
// name: it names it other than after a '$' or '{' (x=..., read x,
// declare x, for x in ...), quotes and backslashes removed ('x”=cd'),
// or a positional parameter (set --, a function's arguments).
func (c *shellCheck) mayBeSet(name string) bool {
	if name == "" || isDigitsOnly(name) {
		return true
	}
	if c.stripped == "" {
		c.stripped = strings.NewReplacer("'", "", "\"", "", "\\", "").Replace(c.src)
	}
	s := c.stripped
	for i := strings.Index(s, name); i >= 0; {
		end := i + len(name)
		before := byte(' ')
		if i > 0 {
			before = s[i-1]
		}
		after := byte(' ')
		if end < len(s) {
			after = s[end]
		}
		if !nameByte(after) && !nameByte(before) && before != '$' && before != '{' {
			return true
		}
		j := strings.Index(s[i+1:], name)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func nameByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// hash follows "hash -p FILE NAME": a later command NAME runs FILE, read
// as an alias (hash -p /bin/bash ls; ls -c 'cd /etc').
func (c *shellCheck) hash(args []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].raw
		if !strings.HasPrefix(t, "-") || !strings.Contains(t, "p") {
			continue
		}
		v := t[strings.IndexByte(t, 'p')+1:]
		if v == "" && i+1 < len(args) {
			i++
			v = args[i].raw
		}
		if args[i].dyn != "" {
			c.refuse("hash -p with a file not known statically")
			return
		}
		if c.aliases == nil {
			c.aliases = map[string]string{}
		}
		for _, n := range args[i+1:] {
			c.aliases[strings.ToLower(n.raw)] = shellQuote(v)
		}
		return
	}
}

// shellQuote quotes s as one word for a script analysed again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// alias follows "alias name=value": a later command of that name runs
// value with its arguments (expand_aliases, bash -i), analysed as eval
// would (alias c=cd; c /etc).
func (c *shellCheck) alias(args []word) {
	for _, a := range args {
		if n, v, ok := strings.Cut(a.raw, "="); ok && n != "" {
			if c.aliases == nil {
				c.aliases = map[string]string{}
			}
			c.aliases[strings.ToLower(n)] = v
		}
	}
}

// embedded analyses, as a script, literal text that holds a command
// substitution ('$(...)' or '`...`' quoted, or escaped): bash runs it
// where it evaluates a value as an arithmetic expression with a subscript
// (x='a[$(cmd)]'; echo $((x))), as a prompt (${x@P}), or as a name
// (${!x}, test -v, unset, printf -v, read).
func (c *shellCheck) embedded(w word) {
	if c.reason == "" && (strings.Contains(w.raw, "$(") || strings.ContainsRune(w.raw, '`')) {
		c.script(": " + w.raw) // an argument: a[$(...)] is no command name to mvdan.cc/sh
	}
}

// stackArg reports whether a cd, pushd or popd operand names a directory
// stack entry (+N, -N).
func stackArg(t string) bool {
	return len(t) > 1 && (t[0] == '+' || t[0] == '-') && isDigitsOnly(t[1:])
}

// dirStack follows a directory change to a stack entry (popd, pushd +N,
// cd -N in zsh): the stack holds only directories the script has been
// in, which are followed already, unless it was set (DIRSTACK[1]=/etc,
// zsh's dirs /etc and dirstack=(...)): then the directory is not known.
func (c *shellCheck) dirStack() {
	if c.tainted["DIRSTACK"] || c.tainted["dirstack"] {
		c.refuse("a directory stack entry after the stack was changed (DIRSTACK, dirs)")
	}
}

// callback analyses mapfile's and readarray's -C callback, which the
// current shell evaluates for every few lines read: in a cluster (-tC
// cb) the options that take a value (dnOsuCc) take the rest or the next
// word.
func (c *shellCheck) callback(args []word) {
	for i := 0; i < len(args); i++ {
		t := args[i].raw
		if !strings.HasPrefix(t, "-") || strings.HasPrefix(t, "--") {
			continue
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte("dnOsuCc", t[j]) < 0 {
				continue
			}
			v := t[j+1:]
			if v == "" && i+1 < len(args) {
				i++
				v = args[i].raw
			}
			if t[j] == 'C' {
				c.inline(v)
			}
			break
		}
	}
}

// setOptions follows zsh's setopt and unsetopt: the options
// that make a pattern match dot files or cross directories (globdots,
// globstarshort), cdablevars and autocd, in any spelling zsh accepts
// (GLOB_DOTS, NO_GLOB_DOTS; any mention counts).
func (c *shellCheck) setOptions(args []word) {
	for _, a := range args {
		o := strings.ToLower(strings.ReplaceAll(a.text, "_", ""))
		o = strings.TrimPrefix(o, "no")
		switch o {
		case "globdots", "dotglob", "globstarshort", "globstar":
			c.globAll = true
		case "cdablevars":
			c.cdVars = true
		case "autocd":
			c.autocd = true
		}
	}
}
