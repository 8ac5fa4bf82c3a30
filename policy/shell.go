package policy

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// Limits of the shell analysis.
const (
	maxShellDepth = 3       // nested sh -c / eval scripts
	maxShellCwds  = 16      // working directories followed through cd
	maxReparse    = 16      // pieces parsed around syntax errors
	maxSplit      = 4 << 10 // bytes parsed piece by piece after maxReparse errors
)

// shellCheck is the shell analysis of one command-like string (issue 14
// item 3): the text is parsed with mvdan.cc/sh/v3/syntax (bash dialect),
// every word is resolved where that can be done statically (quotes, ~,
// $HOME, $PWD, ~+ after cd), and what cannot be resolved is refused when it
// could name a path.
type shellCheck struct {
	p      *Policy
	home   string
	cwds   []string // every working directory the script may have; [0] is the start
	depth  int
	reason string
	// tainted are the path variables (HOME, CDPATH, PWD, OLDPWD) set to
	// a value not known here: a later cd or ~ that reads one is refused.
	tainted map[string]bool
	values  map[*syntax.Word]bool // assignment values, not paths themselves
	// globAll: dotglob or globstar may be on (shopt -s, bash -O,
	// GLOBIGNORE, BASHOPTS), so a pattern can match dot files and cross
	// directories; any unquoted pattern in an argument is then refused.
	globAll bool
	// cdVars: cdable_vars may be on, so "cd name" may go to $name;
	// autocd: a command name that is a directory is a cd (bash -i).
	cdVars, autocd bool
	// namerefs are the names declared with -n, each with the variables it
	// may refer to ("" for one not known here); none yet until its first
	// assignment, which sets it (see assignTo).
	namerefs map[string][]string
	lost     map[string]bool // path variables whose value is not known (see lose)
	// deferred are bodies walked again once the script has been read
	// (see shellCheck.later).
	deferred []syntax.Node
	kept     map[syntax.Node]bool      // the nodes in deferred
	inlined  map[string][]*syntax.File // inline scripts, parsed once
	aliases  map[string]string         // alias name=value (see alias)
	// src is the text analysed (stripped: its quotes and backslashes
	// removed, made when needed) and anyVar that a variable named at run
	// time was set: see splitName.
	src, stripped string
	anyVar        bool
	// fed are the commands whose standard input the text gives (a pipe,
	// <, a here-document or here-string): a name known only at run time
	// may be a shell that reads it.
	fed map[*syntax.CallExpr]bool
}

func (c *shellCheck) taint(name string) {
	if c.tainted == nil {
		c.tainted = map[string]bool{}
	}
	c.tainted[name] = true
}

// shellReason returns why the command-like text s names or may name a
// protected path, or "". Text that is not valid shell is analysed around
// its syntax errors (see parseShell).
func (p *Policy) shellReason(env normalize.PathEnv, s string, depth int) (reason string) {
	defer func() {
		if recover() != nil {
			reason = "the command could not be analysed" // fail closed, never panic
		}
	}()
	files := parseShell(s)
	if len(files) == 0 {
		return ""
	}
	c := &shellCheck{p: p, home: env.Home(), cwds: []string{env.Cwd()}, depth: depth, src: s}
	for _, f := range files {
		syntax.Walk(f, c.visit)
	}
	c.finish()
	return c.reason
}

func (c *shellCheck) visit(n syntax.Node) bool {
	if c.reason != "" {
		return false
	}
	switch x := n.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			c.feed(x.Y)
		}
	case *syntax.Stmt:
		for _, r := range x.Redirs {
			if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
				c.feed(x)
			}
		}
	case *syntax.CallExpr:
		c.call(x)
	case *syntax.Redirect:
		c.redirect(x)
	case *syntax.FuncDecl:
		c.later(x.Body) // called after a later cd: walked again at the end
	case *syntax.DeclClause:
		c.decl(x)
	case *syntax.ForClause, *syntax.WhileClause:
		c.later(x) // a later round runs after the cd at the body's end
	case *syntax.Assign:
		c.evalVar(x)
		if x.Value != nil {
			if c.values == nil {
				c.values = map[*syntax.Word]bool{}
			}
			c.values[x.Value] = true
		}
		c.assign(x)
	case *syntax.WordIter:
		c.iterate(x)
	case *syntax.Word:
		w := c.resolve(x)
		c.embedded(w) // x='a[$(cd /etc; cat shadow)]'; echo $((x))
		if c.values[x] {
			break // an assignment's value: checked where the variable is used
		}
		if w.dyn != "" && w.pathy {
			c.refuse(w.dyn + " in a word that could name a path cannot be resolved statically")
		}
	}
	return c.reason == ""
}

// feed marks the simple command of s as reading input the text gives.
func (c *shellCheck) feed(s *syntax.Stmt) {
	if x, ok := s.Cmd.(*syntax.CallExpr); ok {
		if c.fed == nil {
			c.fed = map[*syntax.CallExpr]bool{}
		}
		c.fed[x] = true
	}
}

func (c *shellCheck) refuse(why string) {
	if c.reason == "" {
		c.reason = why
	}
}

// word is a resolved shell word.
type word struct {
	text  string // for the scanner: quoted wildcards re-quoted, escapes removed
	raw   string // the value bash passes on (quote removal only): a nested script's text
	glob  bool   // has an unquoted wildcard
	dyn   string // why the word cannot be resolved statically, "" if it can
	pathy bool   // has a slash, starts with "~" or ".": could be a path
	// alts are other readings of text for matching: an extended glob
	// that starts a component (@(.env), *(.s)sh, ?(x).env) may match
	// nothing or a name's leading dot, which "*" does not.
	alts []string
}

// extMark stands, in a word's text being built, for an extended glob at
// the start of a path component (see word.alts); maxExtMarks bounds the
// readings tried.
const (
	extMark     = "\x00"
	maxExtMarks = 4
)

// resolve reads w as bash would, as far as it can be decided statically.
func (c *shellCheck) resolve(w *syntax.Word) word {
	var out word
	var b, r strings.Builder
	cp := *w // SplitBraces rewrites the word; the tree being walked must not change
	brace := syntax.SplitBraces(&cp) && slices.ContainsFunc(cp.Parts, func(p syntax.WordPart) bool {
		_, ok := p.(*syntax.BraceExp)
		return ok
	})
	for i, part := range cp.Parts {
		c.part(part, i == 0, false, &b, &r, &out)
	}
	out.text, out.raw = b.String(), r.String()
	if n := strings.Count(out.text, extMark); n > maxExtMarks {
		setDyn(&out, "extended patterns at the start of many path components")
	} else if n > 0 {
		out.alts = extReadings(out.text, n)
		out.text = strings.ReplaceAll(out.text, extMark, "*")
	}
	t := strings.TrimLeft(out.text, "'\"")
	out.pathy = out.pathy || strings.ContainsRune(t, '/') || strings.HasPrefix(t, "~") || strings.HasPrefix(t, ".")
	if brace && (out.pathy || strings.Contains(t, ".")) {
		// Brace expansion is static, but every alternative would have to
		// be checked; a brace word that could be a path is refused.
		out.pathy = true
		setDyn(&out, "brace expansion")
	}
	return out
}

func (c *shellCheck) part(part syntax.WordPart, first, quoted bool, b, r *strings.Builder, out *word) {
	switch x := part.(type) {
	case *syntax.Lit:
		v := x.Value
		if first && !quoted && strings.HasPrefix(v, "~") {
			v = c.tilde(v, out)
		}
		if quoted {
			v = unescapeDouble(v)
			r.WriteString(v)
		} else {
			writeRaw(r, v)
		}
		writeLit(b, v, quoted, out)
	case *syntax.SglQuoted:
		if x.Dollar {
			setDyn(out, "ANSI-C quoting ($'...')")
		}
		writeLit(b, x.Value, true, out)
		r.WriteString(x.Value)
	case *syntax.DblQuoted:
		if x.Dollar {
			setDyn(out, "locale quoting ($\"...\")")
		}
		for j, p := range x.Parts {
			c.part(p, first && j == 0, true, b, r, out)
		}
	case *syntax.ParamExp:
		c.param(x, b, out)
	case *syntax.CmdSubst:
		setDyn(out, "command substitution")
	case *syntax.ProcSubst:
		setDyn(out, "process substitution")
	case *syntax.ArithmExp:
		setDyn(out, "arithmetic expansion")
	case *syntax.ExtGlob:
		// @(a|b), !(x), ...: matched as "*", which matches whatever they
		// can, except at the start of a component, where bash lets a dot
		// in the pattern match a name's leading dot ("*(.e)nv" is .env),
		// and "?(x)" may match nothing: see word.alts.
		if s := b.String(); s == "" || strings.HasSuffix(s, "/") {
			b.WriteString(extMark)
		} else {
			b.WriteByte('*')
		}
		r.WriteString(x.Op.String() + x.Pattern.Value + ")")
		out.glob = true
	case *syntax.BraceExp:
		for _, e := range x.Elems {
			for j, p := range e.Parts {
				c.part(p, first && j == 0, quoted, b, r, out)
			}
		}
	default:
		setDyn(out, "an expansion")
	}
}

func setDyn(out *word, why string) {
	if out.dyn == "" {
		out.dyn = why
	}
}

// param resolves $HOME and $PWD (when the working directory is known);
// any other parameter, and any operator on these, cannot be resolved.
func (c *shellCheck) param(x *syntax.ParamExp, b *strings.Builder, out *word) {
	plain := x.Param != nil && x.Exp == nil && x.Slice == nil && x.Repl == nil && x.Index == nil &&
		!x.Length && !x.Excl && !x.Width && x.Names == 0 && x.NestedParam == nil
	name := ""
	if x.Param != nil {
		name = x.Param.Value
	}
	switch {
	case c.tainted[name]:
		setDyn(out, "$"+name+" after it was changed")
	case plain && name == "HOME" && c.home != "":
		b.WriteString(c.home)
		out.pathy = true
	case plain && name == "PWD" && len(c.cwds) == 1:
		b.WriteString(c.cwds[0])
		out.pathy = true
	case plain && name == "PWD":
		setDyn(out, "$PWD after a cd that may or may not have run")
	default:
		setDyn(out, "parameter expansion of $"+name)
	}
}

// tilde expands a leading ~, ~/..., ~user, ~+ and ~-.
func (c *shellCheck) tilde(v string, out *word) string {
	name, rest, slash := strings.Cut(v[1:], "/")
	if slash {
		rest = "/" + rest
	}
	out.pathy = true
	switch {
	case c.tainted["HOME"] && (name == "" || name == "+" && c.tainted["PWD"]):
		setDyn(out, "~ after $HOME was changed")
	case name == "" && c.home != "":
		return c.home + rest
	case isDirStack(name):
		setDyn(out, "~"+name+" (the directory stack)")
	case name == "+" && len(c.cwds) == 1:
		return c.cwds[0] + rest
	case name == "+" || name == "-":
		setDyn(out, "~"+name+" after a cd")
	case c.home != "" && strings.EqualFold(name, path.Base(c.home)):
		return c.home + rest
	}
	return v
}

// isDirStack reports whether a tilde prefix names a directory stack
// entry: ~N, ~+N, ~-N.
func isDirStack(name string) bool {
	return isDigitsOnly(strings.TrimLeft(name, "+-")) && len(name)-len(strings.TrimLeft(name, "+-")) <= 1
}

// writeLit writes literal text: backslash escapes removed, wildcards that
// are quoted or escaped written in single quotes (the scanner reads them
// as literals), unquoted wildcards noted.
func writeLit(b *strings.Builder, v string, quoted bool, out *word) {
	for i := 0; i < len(v); i++ {
		ch := v[i]
		lit := quoted
		if ch == '\\' && !quoted && i+1 < len(v) {
			i++
			ch, lit = v[i], true
			if ch == '\n' {
				continue // line continuation
			}
		}
		switch {
		case ch == '*' || ch == '?' || ch == '[':
			if lit {
				b.WriteByte('\'')
				b.WriteByte(ch)
				b.WriteByte('\'')
			} else {
				b.WriteByte(ch)
				out.glob = true
			}
		case ch == '\'' || ch == '"' || ch == '`':
			// the scanner deletes quotes; a literal quote is dropped
		default:
			b.WriteByte(ch)
		}
	}
}

// writeRaw writes unquoted literal text as bash passes it on: a
// backslash escapes the next byte, a backslash-newline is removed.
func writeRaw(r *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		r.WriteByte(v[i])
	}
}

// unescapeDouble removes the backslashes bash removes inside double
// quotes: before $, `, ", \ and newline.
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// globVars change what a pattern matches: GLOBIGNORE turns dotglob on,
// BASHOPTS sets shell options for a bash started with it.
var globVars = map[string]bool{"GLOBIGNORE": true, "BASHOPTS": true}

// pathVars are the variables the shell reads to resolve paths (cd, ~).
// DIRSTACK (zsh: dirstack) holds the directories popd and pushd +N go to.
var pathVars = map[string]bool{"HOME": true, "CDPATH": true, "PWD": true, "OLDPWD": true,
	"DIRSTACK": true, "dirstack": true}

// assign follows HOME set to a literal (cd and ~ then use it); any other
// assignment to a path variable taints it (see shellCheck.tainted).
func (c *shellCheck) assign(x *syntax.Assign) {
	if x.Name != nil && c.isRef(x.Name.Value) {
		if x.Naked {
			return // declare -n r r: a name, not an assignment
		}
		v, known := "", x.Array == nil && x.Index == nil
		if x.Value != nil && known {
			w := c.resolve(x.Value)
			v, known = w.raw, w.dyn == ""
		}
		if known && v == "" && len(c.namerefs[x.Name.Value]) == 0 {
			// declare -n g=: bash refuses an empty name, and g is
			// no reference after it.
			delete(c.namerefs, x.Name.Value)
			return
		}
		if !known {
			v = ""
		}
		c.assignTo(x.Name.Value, v)
		return
	}
	if x.Name != nil && globVars[x.Name.Value] {
		c.setVar(x.Name.Value)
	}
	if x.Name == nil || !pathVars[x.Name.Value] {
		return
	}
	name := x.Name.Value
	if x.Value == nil || x.Array != nil || x.Append || x.Index != nil || name != "HOME" {
		c.lose(name)
		return
	}
	c.setHome(c.resolve(x.Value))
}

// setHome follows HOME set to w: a literal path is the home that cd and ~
// use from now on; any other value is lost.
func (c *shellCheck) setHome(w word) {
	env, err := normalize.NewPathEnv(c.home, c.cwds[0])
	if w.dyn != "" || err != nil {
		c.lose("HOME")
		return
	}
	if h, refuse := env.Resolve(w.text); refuse == "" {
		c.home = h
		return
	}
	c.lose("HOME")
}

// lose taints a path variable whose new value is not known here; a
// nested script (sh -c, ssh) inherits it unknown (see inherit).
func (c *shellCheck) lose(name string) {
	c.taint(name)
	if c.lost == nil {
		c.lost = map[string]bool{}
	}
	c.lost[name] = true
}

// inherit prefixes a nested script with what it inherits from this one:
// the shell options that change what names a file, and each path
// variable whose value was lost, assigned a value the nested analysis
// cannot know ("x=/; export CDPATH=$x; bash -c 'cd etc; cat shadow'").
func (c *shellCheck) inherit(s string) string {
	var b strings.Builder
	if c.globAll {
		b.WriteString("shopt -s dotglob\n")
	}
	if c.cdVars {
		b.WriteString("shopt -s cdable_vars\n")
	}
	if c.autocd {
		b.WriteString("shopt -s autocd\n")
	}
	for _, v := range [...]string{"CDPATH", "HOME", "OLDPWD", "PWD"} {
		if c.lost[v] {
			b.WriteString(v + "=$__lost\n")
		}
	}
	if b.Len() == 0 {
		return s
	}
	return b.String() + s
}

// setVar follows an assignment to the variable name whose value is not
// followed: a path variable is tainted, GLOBIGNORE or BASHOPTS may turn
// dotglob (and any shell option) on. An empty name may be any variable:
// every path variable is tainted and every pattern refused. A nameref
// assigns what it refers to (see assignTo).
func (c *shellCheck) setVar(name string) {
	switch {
	case name == "":
		c.anyVar = true
		for v := range pathVars {
			c.lose(v)
		}
		c.globAll = true // GLOBIGNORE (BASHOPTS is read-only in a shell)
	case c.isRef(name):
		c.assignTo(name, "")
	case pathVars[name]:
		c.lose(name)
	case globVars[name]:
		c.globAll = true
		if name == "BASHOPTS" {
			c.cdVars, c.autocd = true, true
		}
	}
}

func (c *shellCheck) isRef(name string) bool {
	_, ok := c.namerefs[name]
	return ok
}

// declareRef makes name a nameref without a target yet (declare -n r):
// its next assignment sets the target.
func (c *shellCheck) declareRef(name string) {
	if c.namerefs == nil {
		c.namerefs = map[string][]string{}
	}
	c.namerefs[name] = []string{}
}

// assignTo follows an assignment of value ("" when not known here) to
// the nameref name: the first sets the variable it refers to, as bash
// does ("declare -n r; r=HOME"); later ones assign that variable.
func (c *shellCheck) assignTo(name, value string) {
	targets := c.namerefs[name]
	if len(targets) == 0 {
		c.namerefs[name] = []string{value}
		return
	}
	delete(c.namerefs, name) // a reference to itself is not followed twice
	for _, t := range targets {
		c.setVar(t)
	}
	c.namerefs[name] = targets
}

// shopt follows a shell option that changes how words name files:
// dotglob and globstar (patterns), cdable_vars and autocd (cd).
func (c *shellCheck) shopt(opt string) {
	switch {
	case globShopt[opt]:
		c.globAll = true
	case opt == "cdable_vars":
		c.cdVars = true
	case opt == "autocd":
		c.autocd = true
	}
}

// decl follows what declare, typeset, local, export and readonly assign
// with words the parser does not read as NAME=value: a quoted or expanded
// word ('HOME=/etc', "$n=$v") assigns the variable it names at run time,
// and -n (or an option word known only at run time) makes each name it
// declares a reference to another variable, set by the assignment that
// follows (declare -n h=HOME).
func (c *shellCheck) decl(x *syntax.DeclClause) {
	variant := x.Variant.Value
	ref := variant == "nameref"
	var words []word
	for _, a := range x.Args {
		if a.Name != nil || a.Value == nil {
			continue
		}
		w := c.resolve(a.Value)
		words = append(words, w)
		canRef := variant != "export" && variant != "readonly"
		ref = ref || canRef && (w.dyn != "" || strings.HasPrefix(w.raw, "-") && strings.ContainsRune(w.raw, 'n'))
	}
	for _, a := range x.Args {
		if a.Name != nil && ref {
			c.declareRef(a.Name.Value) // its value, visited next, sets the target
		}
	}
	for _, w := range words {
		if w.dyn != "" {
			c.setVar("")
			continue
		}
		if strings.HasPrefix(w.raw, "-") || strings.HasPrefix(w.raw, "+") {
			continue
		}
		name, value, assigns := strings.Cut(w.raw, "=")
		name, _, _ = strings.Cut(name, "[")
		name = strings.TrimSuffix(name, "+")
		if !isName(name) {
			continue
		}
		if ref {
			c.declareRef(name)
		}
		switch {
		case assigns && c.isRef(name):
			c.assignTo(name, value)
		case assigns:
			c.setVar(name)
		}
	}
}

// extReadings returns the readings of text in which each of its n marks
// is "" or ".*" (text with "*" for every mark is the word's own text).
func extReadings(text string, n int) []string {
	var out []string
	for bits := 0; bits < 1<<n; bits++ {
		var b strings.Builder
		rest := text
		for i := 0; i < n; i++ {
			j := strings.Index(rest, extMark)
			b.WriteString(rest[:j])
			if bits&(1<<i) != 0 {
				b.WriteString(".*")
			}
			rest = rest[j+len(extMark):]
		}
		b.WriteString(rest)
		out = append(out, b.String())
	}
	return out
}

// iterate follows a for loop's variable: a path variable is lost, and a
// nameref refers in turn to each variable its words name.
func (c *shellCheck) iterate(x *syntax.WordIter) {
	if x.Name == nil {
		return
	}
	if !c.isRef(x.Name.Value) {
		c.setVar(x.Name.Value)
		return
	}
	targets := c.namerefs[x.Name.Value]
	for _, w := range x.Items {
		r := c.resolve(w)
		if r.dyn != "" || r.glob || r.text != r.raw {
			targets = append(targets, "")
		} else {
			targets = append(targets, r.raw)
		}
	}
	c.namerefs[x.Name.Value] = targets
}
