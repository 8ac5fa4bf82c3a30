package policy

import (
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// protectedPath is one canonical protected path.
type protectedPath struct {
	path string // canonical: absolute ("/home/u/.ssh") or relative (".env")
	abs  bool
	// aroundCwd: the path is the working directory or one of its
	// ancestors, so every relative word would resolve inside it. Bare words
	// ("notes.txt") are then not matched against it; see matchToken.
	aroundCwd bool
	// padded is "/" + path + "/" for relative paths: a component-aligned
	// substring test.
	padded string
}

func (c *compiler) protectedPaths(n *yaml.Node) error {
	items, err := list(n, "spec.protected_paths")
	if err != nil {
		return err
	}
	for _, it := range items {
		v := it.Value
		if strings.TrimSpace(v) == "" {
			return errAt(it, "spec.protected_paths entry is empty")
		}
		if c.p.env.Home() == "" && usesHome(v) {
			return errAt(it, "protected path %q uses the home directory, which is unknown here (set policy.Options.Home)", clip(v))
		}
		c.protect(c.p.env.Clean(v))
	}
	return nil
}

func usesHome(v string) bool {
	t := normalize.PathText(v)
	return strings.HasPrefix(t, "~") || strings.Contains(t, "$home") || strings.Contains(t, "${home}") || strings.Contains(t, "%userprofile%")
}

// protectFile protects the policy file (AIP §8.1) by its absolute path and,
// if different, its resolved path.
func (c *compiler) protectFile(abs string) {
	c.protect(c.p.env.Clean(abs))
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		c.protect(c.p.env.Clean(real))
	}
}

func (c *compiler) protect(canon string) {
	for _, pp := range c.p.protected {
		if pp.path == canon {
			return
		}
	}
	pp := protectedPath{path: canon, abs: strings.HasPrefix(canon, "/")}
	if pp.abs {
		cwd := c.p.env.Cwd()
		pp.aroundCwd = canon == "/" || cwd == canon || strings.HasPrefix(cwd, canon+"/")
	} else {
		pp.padded = "/" + canon + "/"
	}
	c.p.protected = append(c.p.protected, pp)
}

// ProtectedPaths returns the canonical protected paths, the policy file's included.
func (p *Policy) ProtectedPaths() []string {
	out := make([]string, len(p.protected))
	for i, pp := range p.protected {
		out[i] = pp.path
	}
	return out
}

// matchToken reports whether a path-like word names a protected path or
// something inside one.
func (pp *protectedPath) matchToken(t normalize.Token) bool {
	if t.Glob {
		return pp.matchGlob(t)
	}
	if pp.abs && strings.HasPrefix(t.Rel, "../") && pp.climbs(t.Rel) {
		return true
	}
	if !pp.abs {
		// A relative protected path matches as whole components anywhere:
		// ".env" catches "/app/.env" and "x/../.env" but not ".env.example".
		// A relative word is matched as written, not joined to the working
		// directory, whose own components must not count.
		if t.Rel != "" {
			return strings.Contains("/"+t.Rel+"/", pp.padded)
		}
		return strings.Contains(t.Abs+"/", pp.padded)
	}
	if t.Bare && pp.aroundCwd {
		// "notes.txt" with the working directory inside a protected tree:
		// matching would block every word of every argument. Bare words are
		// matched only against protected paths below the working directory.
		return false
	}
	return pathWithin(t.Abs, pp.path) || (t.HomeAbs != "" && pathWithin(t.HomeAbs, pp.path))
}

// matchGlob reports whether a shell pattern ("/etc/shado?", ".e[n]v",
// "~/.ss*/id_rsa") can name the protected path or something inside it:
// each of the protected path's components is matched by the pattern's
// component in the same place (for a relative protected path, anywhere
// along the pattern). A malformed pattern component is compared literally.
func (pp *protectedPath) matchGlob(t normalize.Token) bool {
	if t.Bare {
		// "what?", "5 * 3", "*": words, or globs a shell keeps to the
		// working directory's own names without dot files. Not matched, or
		// prose would be blocked; path-like patterns are.
		return false
	}
	if t.Rel != "" && !strings.Contains(t.Rel, "/") && pureWildcard(t.Rel) {
		// ".*" alone (a regex, -run=.*): a pattern of every dot file names
		// no file in particular; in a shell command argument, where the
		// shell would expand it, shellGlobHit matches it.
		return false
	}
	pc := strings.Split(strings.TrimPrefix(pp.path, "/"), "/")
	if !pp.abs {
		g := t.Abs
		if t.Rel != "" {
			g = t.Rel // not joined: the working directory's components must not count
		}
		gc := strings.Split(strings.TrimPrefix(g, "/"), "/")
		for i := 0; i+len(pc) <= len(gc); i++ {
			if componentsMatch(gc[i:i+len(pc)], pc) {
				return true
			}
		}
		return false
	}
	for _, g := range []string{t.Abs, t.HomeAbs} {
		if g == "" {
			continue
		}
		gc := strings.Split(strings.TrimPrefix(g, "/"), "/")
		if pp.path == "/" || len(gc) >= len(pc) && componentsMatch(gc[:len(pc)], pc) {
			return true
		}
	}
	return false
}

// componentsMatch matches name components against pattern components as
// a shell does: a name starting with '.' needs a pattern starting with '.'.
// A bracket expression matches any one character (see bracketsAsAny).
func componentsMatch(patterns, names []string) bool {
	for i, p := range patterns {
		if strings.HasPrefix(names[i], ".") && !strings.HasPrefix(p, ".") {
			return false
		}
		ok, err := path.Match(bracketsAsAny(p), names[i])
		if err != nil {
			ok = p == names[i]
		}
		if !ok {
			return false
		}
	}
	return true
}

// pathWithin reports whether p is dir or inside dir (both canonical, absolute).
func pathWithin(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || (len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir)
}

// climbs reports whether a relative word that starts by climbing ("../")
// continues with the protected path's last components (".ssh/id_rsa"
// after "../" names ~/.ssh from any directory of home): a tool whose base
// directory is not known here could resolve it there (issue 14 item 5).
func (pp *protectedPath) climbs(rel string) bool {
	for strings.HasPrefix(rel, "../") {
		rel = rel[3:]
	}
	if rel == ".." || rel == "" {
		return false
	}
	pc := strings.Split(strings.TrimPrefix(pp.path, "/"), "/")
	for k := len(pc) - 1; k >= 1; k-- {
		tail := strings.Join(pc[k:], "/")
		if rel == tail || strings.HasPrefix(rel, tail+"/") {
			return true
		}
	}
	return false
}

// pureWildcard reports whether a pattern component is wildcards only,
// after an optional leading dot (".*", "*", ".??*").
func pureWildcard(c string) bool {
	return strings.Trim(strings.TrimPrefix(c, "."), "*?") == ""
}

// bracketsAsAny replaces each bash bracket expression of a pattern
// component ("[!x]", "[^x]", "[[:lower:]]", "[[=e=]]", "[]a]") with "?":
// path.Match knows neither "!" negation nor character classes, and a
// bracket matches one character at most, so "?" can only match more. A
// "[" without its closing "]" stays a literal, as in bash.
func bracketsAsAny(p string) string {
	if !strings.Contains(p, "[") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
		case p[i] == '[':
			if end := bracketEnd(p, i); end > 0 {
				b.WriteByte('?')
				i = end
			} else {
				b.WriteString(`\[`)
			}
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// bracketEnd returns the index of the "]" that closes the bracket
// expression opened at p[start], or -1: a "]" first (after "!" or "^") is
// a member, and "[:", "[=" and "[." open classes that end at ":]", "=]"
// and ".]".
func bracketEnd(p string, start int) int {
	i := start + 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		i++
	}
	if i < len(p) && p[i] == ']' {
		i++
	}
	for ; i < len(p); i++ {
		switch {
		case p[i] == ']':
			return i
		case p[i] == '[' && i+1 < len(p) && strings.IndexByte(":=.", p[i+1]) >= 0:
			if j := strings.Index(p[i+2:], string(p[i+1])+"]"); j >= 0 {
				i += 2 + j + 1
			}
		}
	}
	return -1
}
