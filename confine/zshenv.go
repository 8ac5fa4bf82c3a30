package confine

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxZshenv bounds the bytes of a zshenv file read for ZDOTDIR.
const maxZshenv = 1 << 20

// systemZshenv are where zsh reads the system's zshenv (builds differ).
var systemZshenv = []string{"/etc/zshenv", "/etc/zsh/zshenv"}

// homeStartup are the startup files of home that set shellStartup
// variables for the user's later shells: ZDOTDIR in .zshenv (or
// .zprofile), BASH_ENV and ENV exported from .profile or bash's files.
var homeStartup = []string{".zshenv", ".zprofile", ".profile", ".bash_profile", ".bash_login", ".bashrc"}

// zshenvZdotdirs returns what the startup files of homes (homeStartup)
// and the system's zshenv set ZDOTDIR, BASH_ENV or ENV to (zsh reads
// .zshrc and .zlogin in ZDOTDIR; bash -c sources BASH_ENV): ZDOTDIR is
// set in ~/.zshenv by convention, so a server started from a desktop or
// a launcher does not have it in its environment (shellStartup), and
// ZDOTDIR=~/dotfiles/zsh in ~/.zshenv left ~/dotfiles writable for a
// .zshrc the user's next shell ran (red team rtb). A value it cannot decide (a command substitution, a
// variable other than HOME and XDG_CONFIG_HOME) is returned as a
// sentence naming the file, which holds and is held by every directory.
func zshenvZdotdirs(homes []string) []string {
	var files []string
	for _, h := range homes {
		for _, f := range homeStartup {
			files = append(files, filepath.Join(h, f))
		}
	}
	files = append(files, systemZshenv...)
	var out []string
	seen := map[string]bool{}
	for _, name := range files {
		if seen[name] {
			continue
		}
		seen[name] = true
		home := filepath.Dir(name)
		if !filepath.IsAbs(home) || home == "/etc" || home == "/etc/zsh" {
			home = os.Getenv("HOME")
		}
		out = append(out, zdotdirsIn(name, home)...)
	}
	return out
}

// zdotdirsIn returns what the shell file name sets ZDOTDIR, BASH_ENV or
// ENV to (see
// zshenvZdotdirs), with home as $HOME and ~.
func zdotdirsIn(name, home string) []string {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, maxZshenv+1))
	undecided := func(why string) []string {
		return []string{fmt.Sprintf("the ZDOTDIR, BASH_ENV or ENV %s sets (%s)", name, why)}
	}
	if err != nil || len(src) > maxZshenv {
		return undecided("not read whole")
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), name)
	if err != nil {
		// zsh syntax bash does not parse: only where ZDOTDIR is in it.
		if !mentionsStartup(src) {
			return nil
		}
		return undecided("not parsed")
	}
	env := &knownEnv{vars: map[string]string{"HOME": home, "XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "IFS": " \t\n"}}
	if env.vars["XDG_CONFIG_HOME"] == "" {
		env.vars["XDG_CONFIG_HOME"] = filepath.Join(home, ".config")
	}
	// ENV=${ENV:-~/.kshrc}: the variables themselves are this process's.
	env.unset = map[string]bool{}
	for _, name := range shellStartup {
		if v, ok := os.LookupEnv(name); ok {
			env.vars[name] = v
		} else {
			env.unset[name] = true
		}
	}
	cfg := &expand.Config{Env: env}
	var out []string
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name == nil || !slices.Contains(shellStartup, n.Name.Value) {
				return true
			}
			if n.Value == nil {
				return true
			}
			env.unknown = false
			v, err := expand.Literal(cfg, n.Value)
			switch {
			case err != nil || env.unknown:
				out = append(out, undecided("a value it cannot read")...)
			case filepath.IsAbs(v):
				out = append(out, v)
				env.vars[n.Name.Value] = v
			}
		case *syntax.ParamExp:
			// ${ZDOTDIR:=~/dotfiles/zsh}, ${ZDOTDIR=...}
			if n.Param != nil && slices.Contains(shellStartup, n.Param.Value) && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				out = append(out, undecided("a default value")...)
			}
		}
		return true
	})
	return out
}

// mentionsStartup reports whether src names a shellStartup variable.
func mentionsStartup(src []byte) bool {
	for _, name := range shellStartup {
		if bytes.Contains(src, []byte(name)) {
			return true
		}
	}
	return false
}

// knownEnv gives the variables it knows, and notes a lookup of another.
type knownEnv struct {
	vars    map[string]string
	unset   map[string]bool // known to be unset
	unknown bool
}

func (e *knownEnv) Get(name string) expand.Variable {
	v, ok := e.vars[name]
	if !ok {
		e.unknown = e.unknown || !e.unset[name]
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
}

func (e *knownEnv) Each(f func(string, expand.Variable) bool) {
	for name, v := range e.vars {
		if !f(name, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}) {
			return
		}
	}
}
