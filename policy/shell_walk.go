package policy

import (
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// recursive refuses a directory walk (grep -r, find, tar, cp -r, rsync,
// zip -r, ls -R, chmod/chown -R, rm -r, du, ...) whose directory is an
// ancestor of a protected path, tar -C's directory included. A relative
// protected path (".env") can be in any directory, so any walk is refused
// while the policy has one: the walk would reach it wherever it starts.
func (c *shellCheck) recursive(name, flags string, args []word) {
	if flags != "" && !hasFlag(args, flags) {
		return
	}
	var dirs []string
	operands := 0
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case name == "tar" && (t == "-C" || t == "--directory") && i+1 < len(args):
			i++
			dirs = append(dirs, args[i].text)
		case name == "tar" && strings.HasPrefix(t, "--directory="):
			dirs = append(dirs, strings.TrimPrefix(t, "--directory="))
		case name == "tar" && strings.HasPrefix(t, "-C") && len(t) > 2:
			dirs = append(dirs, t[2:])
		case strings.HasPrefix(t, "-"):
		default:
			operands++
			dirs = append(dirs, globDir(t))
		}
	}
	pattern := 0
	if strings.HasSuffix(name, "grep") || name == "rg" || name == "ag" || name == "ack" {
		pattern = 1
	}
	if defaultsToCwd[name] && operands <= pattern {
		dirs = append(dirs, ".")
	}
	for _, d := range dirs {
		if c.ancestor(d) {
			c.refuse(name + " walks a directory that holds a protected path")
			return
		}
	}
}

// hasFlag reports whether an option cluster (-rf) has one of flags, or a
// long option asks for recursion.
func hasFlag(args []word, flags string) bool {
	for _, a := range args {
		t := a.text
		if t == "--recursive" || t == "--archive" || t == "--recurse-paths" || t == "--dereference-recursive" {
			return true
		}
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], flags) {
			return true
		}
	}
	return false
}

// globDir is the directory a pattern operand walks from: the components
// before the first one with a wildcard ("/home/*" walks /home).
func globDir(t string) string {
	i := strings.IndexAny(t, "*?[")
	if i < 0 {
		return t
	}
	j := strings.LastIndexByte(t[:i], '/')
	if j < 0 {
		return "."
	}
	if j == 0 {
		return "/"
	}
	return t[:j]
}

// ancestor reports whether directory d, from any working directory the
// script may have, is a protected path's ancestor (or the path itself).
func (c *shellCheck) ancestor(d string) bool {
	for _, pp := range c.p.protected {
		if !pp.abs {
			return true
		}
	}
	return c.absAncestor(d)
}

// absAncestor reports whether directory d, from any working directory the
// script may have, is an absolute protected path's ancestor (or the path
// itself); relative protected paths are not considered.
func (c *shellCheck) absAncestor(d string) bool {
	d = globDir(d) // git -C /ho?e/agent, cd /e?c: the pattern's fixed directories
	for _, cwd := range c.cwds {
		env, err := normalize.NewPathEnv(c.home, cwd)
		if err != nil {
			return true
		}
		abs, refuse := env.Resolve(d)
		if refuse != "" {
			return true
		}
		for _, pp := range c.p.protected {
			if pp.abs && pathWithin(pp.path, abs) {
				return true
			}
		}
	}
	return false
}
