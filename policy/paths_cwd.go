package policy

import (
	"path"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// maxCwdText bounds the command-like values checked again from a
// directory argument: commands are short; long content is not run.
const maxCwdText = 64 << 10

// dirLike reports whether canonical text t is written as a directory a
// tool may run in: absolute, from home ("~", "$HOME", "%USERPROFILE%"),
// or relative to the working directory with "." or ".." ("../../etc").
func dirLike(t string) bool {
	for _, p := range [...]string{"/", "~", ".", "$home", "${home}", "%userprofile%"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// cwdReason checks, for a tool that declares nothing, the arguments that
// a directory argument may be the working directory of: {"cwd": "/etc",
// "cmd": "cat shadow"} runs cat /etc/shadow. Every string argument
// without white space that dirLike reads as a directory ("/etc", "~",
// "../../etc") is taken as a possible working directory, and every other string with white space (a command)
// and every array of strings (an argv) is checked again from it. An
// array of strings is also read as one command, its elements quoted, so
// {"argv": ["grep", "-r", "BEGIN", "."]} is analysed as a command.
// checkProtected calls it only when argShape.mayRunIn holds.
func (p *Policy) cwdReason(env normalize.PathEnv, args map[string]any) (string, string) {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	envs := []normalize.PathEnv{env}
	var dirNames []string
	for _, k := range names {
		s, ok := args[k].(string)
		if !ok || s == "" || len(s) > 4096 || strings.ContainsAny(s, " \t\r\n") || len(envs) > maxPairArgs {
			continue
		}
		if !dirLike(normalize.PathText(s)) {
			continue
		}
		dir, refuse := env.Resolve(s)
		if refuse != "" || dir == env.Cwd() {
			continue // the value itself was checked; it is no other directory to start from
		}
		if e, err := normalize.NewPathEnv(env.Home(), dir); err == nil {
			envs = append(envs, e)
			dirNames = append(dirNames, k)
		}
	}
	for _, k := range names {
		if r := p.partsReason(env, args[k]); r != "" {
			return k, r
		}
		if v := shellVarSet(args[k]); v != "" {
			return k, "it sets the shell variable " + v + ", which changes how the command's paths are read"
		}
		text, ok := commandText(args[k])
		if !ok {
			continue
		}
		_, isString := args[k].(string)
		for i, e := range envs {
			if i == 0 && isString || i > 0 && dirNames[i-1] == k {
				continue // a string was checked from the working directory already
			}
			if r := p.textReason(e, text, 0); r != "" {
				if i == 0 {
					return k, "as one command " + why(r)
				}
				return k, "run in the directory of argument " + quote(dirNames[i-1]) + " it " + strings.TrimPrefix(r, "the text ")
			}
		}
	}
	return "", ""
}

// commandText is the command a value may be: a string with white space
// (at most maxCwdText bytes), or an array of strings joined as a shell
// would quote them.
func commandText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, len(x) <= maxCwdText && strings.ContainsAny(x, " \t\r\n")
	case []any:
		if len(x) == 0 {
			return "", false
		}
		parts := make([]string, len(x))
		n := 0
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", false
			}
			if n += len(s); n > maxCwdText {
				return "", false
			}
			parts[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		return strings.Join(parts, " "), true
	}
	return "", false
}

// partsReason checks an array of strings that starts with a directory as
// the path its elements join to: {"path": ["/etc", "shadow"]}.
func (p *Policy) partsReason(env normalize.PathEnv, v any) string {
	x, ok := v.([]any)
	if !ok || len(x) < 2 || len(x) > maxPairArgs {
		return ""
	}
	parts := make([]string, len(x))
	for i, e := range x {
		s, ok := e.(string)
		if !ok || len(s) > 4096 {
			return ""
		}
		parts[i] = s
	}
	if t := normalize.PathText(parts[0]); !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "~") {
		return ""
	}
	if r := p.scanReason(env, path.Join(parts...)); r != "" {
		return "its elements join to a path that " + why(r)
	}
	return ""
}

// shellVarSet returns the name of a variable that changes how a shell
// reads paths (HOME, CDPATH, BASH_ENV, GLOBIGNORE, ...) when v is an
// object that sets it, as an environment for a command: {"env": {"HOME":
// "/etc"}, "cmd": "cat ~/shadow"}.
func shellVarSet(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	for k := range m {
		if pathVars[k] || globVars[k] || shellEvalVars[k] || k == "SHELLOPTS" {
			return k
		}
	}
	return ""
}
