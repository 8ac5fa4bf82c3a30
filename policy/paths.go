package policy

import (
	"path"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// joinedReason checks the arguments of one declared Join group joined as
// the tool joins them. A missing member leaves the group unchecked (the
// tool has nothing to join); a member that is not a string is refused,
// since the tool's own decoding of it is unknown here.
func (p *Policy) joinedReason(env normalize.PathEnv, args map[string]any, group []string) (string, string) {
	parts := make([]string, 0, len(group))
	for _, name := range group {
		v, ok := args[name]
		if !ok {
			return "", ""
		}
		s, isStr := v.(string)
		if !isStr {
			return name, "a declared path argument is not a string"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "", ""
	}
	joined := path.Join(parts...)
	if r := p.scanReason(env, joined); r != "" {
		return group[len(group)-1], r
	}
	return "", ""
}

// pairReason checks, for a tool that declares nothing, every ordered pair
// of string arguments that could form one path (issue 14 item 5): the
// first is a directory (absolute, "~" or "."), the second a relative path,
// neither has white space: {"dir": "/home", "name": "u/.ssh/id_rsa"} is
// checked as /home/u/.ssh/id_rsa. Only the first maxPairArgs string
// arguments, in name order, are paired.
func (p *Policy) pairReason(env normalize.PathEnv, args map[string]any) (string, string) {
	var dirs, rels []string
	names := make([]string, 0, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok && s != "" && len(s) < 4096 && !strings.ContainsAny(s, " \t\r\n") {
			names = append(names, k)
		}
	}
	if len(names) < 2 {
		return "", ""
	}
	sort.Strings(names)
	if len(names) > maxPairArgs {
		names = names[:maxPairArgs]
	}
	for _, k := range names {
		s := args[k].(string)
		t := normalize.PathText(s)
		if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") || strings.HasPrefix(t, ".") || strings.HasPrefix(t, "file:") {
			dirs = append(dirs, k)
		}
		if !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "~") {
			rels = append(rels, k)
		}
	}
	for _, d := range dirs {
		for _, r := range rels {
			if d == r {
				continue
			}
			joined := args[d].(string) + "/" + args[r].(string)
			if p.pf.scan(joined) == 0 {
				continue
			}
			if why := p.scanReason(env, joined); why != "" {
				return r, "with argument " + quote(d) + " it forms a path that " + why
			}
		}
	}
	return "", ""
}
