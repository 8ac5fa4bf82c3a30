package policy

import (
	"encoding/json"
	"errors"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// PathArgs declares how a tool reads file paths from its arguments (issue
// 14 item 5), so the protected-path check resolves them the way the tool
// does. Without a declaration, relative words are resolved against the
// policy's working directory and home, and pairs of string arguments that
// could form a path are also checked joined.
type PathArgs struct {
	// Base is the absolute directory the tool resolves relative paths
	// against; "" means the policy's working directory (Options.WorkDir).
	Base string
	// Args names the arguments that each hold one path.
	Args []string
	// Join lists groups of arguments the tool joins, in order, as
	// path.Join does: {"dir", "name"} checks dir/name.
	Join [][]string
}

// Validate reports whether the declaration is usable: Base empty or
// absolute, argument names non-empty, every Join group of two or more
// names. A guard validates declarations once, when it is built.
func (a *PathArgs) Validate() error {
	if a == nil {
		return nil
	}
	if a.Base != "" && !strings.HasPrefix(a.Base, "/") {
		return errors.New("policy: PathArgs.Base must be an absolute path")
	}
	for _, n := range a.Args {
		if n == "" {
			return errors.New("policy: PathArgs.Args has an empty argument name")
		}
	}
	for _, g := range a.Join {
		if len(g) < 2 || slices.Contains(g, "") {
			return errors.New("policy: each PathArgs.Join group needs two or more non-empty argument names")
		}
	}
	return nil
}

// maxPairArgs bounds the string arguments whose pairs are checked joined.
const maxPairArgs = 16

// checkProtected is AIP §4.3 step 2 for every argument, keys included.
func (p *Policy) checkProtected(method, tool string, args map[string]any, decl *PathArgs) (Decision, bool) {
	if len(p.protected) == 0 {
		return Decision{}, false
	}
	deny := func(arg, why string) (Decision, bool) {
		reason := "Argument " + quote(arg) + " names a protected path"
		if why != "" {
			reason = "Argument " + quote(arg) + " may name a protected path: " + why
		}
		return Decision{
			Outcome: ProtectedPath, Violation: true,
			Code: CodeProtectedPath, Message: MessageProtectedPath,
			Reason: reason, Method: method, Tool: tool, FailedArg: arg,
		}, true
	}
	env := p.env
	if decl != nil && decl.Base != "" {
		e, err := normalize.NewPathEnv(p.env.Home(), decl.Base)
		if err != nil || !strings.HasPrefix(decl.Base, "/") {
			return deny("", "the tool's declared base directory is not an absolute path")
		}
		env = e
	}
	var shape argShape
	for k, v := range args {
		if r := p.textReason(env, k, 0); r != "" {
			return deny(k, why(r))
		}
		if r := p.valueReason(env, v, 0); r != "" {
			return deny(k, why(r))
		}
		shape.add(v)
	}
	if decl == nil && shape.nested {
		// {"options": {"cwd": "/etc"}, "cmd": "cat shadow"}: the members
		// of nested objects are read as arguments too.
		args = nestedArgs(args)
		shape = argShape{}
		for _, v := range args {
			shape.add(v)
		}
	}
	if decl != nil {
		for _, group := range decl.Join {
			if arg, r := p.joinedReason(env, args, group); r != "" {
				return deny(arg, why(r))
			}
		}
		return Decision{}, false
	}
	if shape.words >= 2 {
		if arg, r := p.pairReason(env, args); r != "" {
			return deny(arg, why(r))
		}
	}
	if shape.mayRunIn() {
		if arg, r := p.cwdReason(env, args); r != "" {
			return deny(arg, r)
		}
	}
	return Decision{}, false
}

// argShape counts, in the one walk over a call's arguments, what
// pairReason and cwdReason look for, so that the common call (a few
// plain values) skips both without walking the map again.
type argShape struct {
	strs      int  // string values
	words     int  // non-empty strings under 4096 bytes without white space: pairReason's candidates
	spaced    bool // a string with white space (a command)
	composite bool // an array or an object (an argv, an env)
	nested    bool // an object
}

func (a *argShape) add(v any) {
	switch x := v.(type) {
	case map[string]any:
		a.composite, a.nested = true, true
	case []any:
		a.composite = true
	case string:
		a.strs++
		if strings.ContainsAny(x, " \t\r\n") {
			a.spaced = true
		} else if x != "" && len(x) < 4096 {
			a.words++
		}
	}
}

// mayRunIn reports whether the arguments hold something cwdReason checks:
// an array or an object, or a string with white space beside another
// string.
func (a *argShape) mayRunIn() bool {
	return a.composite || (a.strs >= 2 && a.spaced)
}

// hitReason is the reason of a plain match: the word names a protected path.
const hitReason = "names a protected path"

func why(r string) string {
	if r == hitReason {
		return ""
	}
	return r
}

// textReason returns why free text s names or may name a protected path,
// or "". Clean text is decided by the literal prefilter; the rest goes
// through the word scanner and, for command-like text, the shell analysis.
func (p *Policy) textReason(env normalize.PathEnv, s string, depth int) string {
	if s == "" {
		return ""
	}
	nd := p.pf.scan(s)
	if nd&needWords != 0 {
		if r := p.scanReason(env, s); r != "" {
			return r
		}
	}
	if nd&needShell != 0 {
		return p.shellReason(env, s, depth)
	}
	return ""
}

// scanReason runs the word scanner over s.
func (p *Policy) scanReason(env normalize.PathEnv, s string) string {
	reason := ""
	env.Scan(s, func(t normalize.Token) bool {
		if t.Refuse != "" {
			reason = "the text " + t.Refuse
			return true
		}
		for i := range p.protected {
			if p.protected[i].matchToken(t) {
				reason = hitReason
				if t.Glob {
					reason = "a pattern that can match a protected path"
				}
				return true
			}
		}
		return false
	})
	return reason
}

// shellGlobHit reports whether an unquoted pattern in a shell command's
// argument, as the shell expands it in env's working directory, can match
// a protected path: unlike free text, ".*" there is a glob of the working
// directory's dot files.
func (p *Policy) shellGlobHit(env normalize.PathEnv, pattern string) bool {
	pat := env.Clean(pattern)
	if !strings.HasPrefix(pat, ".") || strings.Contains(pat, "/") {
		// Multi-component patterns are matched by the scanner. A bare
		// pattern without a leading dot ("what?") is prose as often as a
		// glob: not matched (a known gap for a protected file directly in
		// the working directory; confine is the boundary there).
		return false
	}
	for _, pp := range p.protected {
		name := pp.path
		if pp.abs {
			if path.Dir(pp.path) != env.Cwd() {
				continue
			}
			name = path.Base(pp.path)
		} else if strings.Contains(name, "/") {
			name = name[:strings.IndexByte(name, '/')]
		}
		if componentsMatch([]string{pat}, []string{name}) {
			return true
		}
	}
	return false
}

// valueReason walks an argument value (keys and nested values included).
func (p *Policy) valueReason(env normalize.PathEnv, v any, depth int) string {
	if depth > maxDepth {
		return "the value is nested too deeply to inspect"
	}
	switch x := v.(type) {
	case string:
		return p.textReason(env, x, 0)
	case map[string]any:
		for k, e := range x {
			if r := p.textReason(env, k, 0); r != "" {
				return r
			}
			if r := p.valueReason(env, e, depth+1); r != "" {
				return r
			}
		}
	case []any:
		for _, e := range x {
			if r := p.valueReason(env, e, depth+1); r != "" {
				return r
			}
		}
	case nil, bool, json.Number, float64, int, int64:
	default:
		// A Go value that JSON decoding does not produce (a caller's own
		// slice or struct): inspect its JSON text; fail closed if it has none.
		s, err := stringify(v)
		if err != nil {
			return "the value has no JSON representation"
		}
		return p.textReason(env, s, 0)
	}
	return ""
}

// Bounds of nestedArgs.
const (
	maxNestedDepth = 3
	maxNestedArgs  = 4 * maxPairArgs
)

// nestedArgs returns args with the members of its objects added under
// dotted names ("options.cwd"), objects in objects too, up to
// maxNestedDepth levels and maxNestedArgs added members (in name order),
// so that pairReason and cwdReason see a working directory, a path's
// parts or an environment given in an object.
func nestedArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args)+8)
	for k, v := range args {
		out[k] = v
	}
	added := 0
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if added >= maxNestedArgs {
				return
			}
			name := prefix + "." + k
			if _, taken := out[name]; taken {
				continue
			}
			out[name] = m[k]
			added++
			if sub, ok := m[k].(map[string]any); ok && depth < maxNestedDepth {
				walk(name, sub, depth+1)
			}
		}
	}
	keys := make([]string, 0, len(args))
	for k, v := range args {
		if _, ok := v.(map[string]any); ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		walk(k, args[k].(map[string]any), 1)
	}
	return out
}
