// Package secretref is the syntax by which tool parameters name a vault
// secret, "{{vault:NAME}}", shared by consent (whose prompt lists the
// secrets a call would get) and consent/vault (which injects them).
//
// # Concurrency
//
// Every function is safe for concurrent use.
package secretref

import (
	"regexp"
	"slices"
)

// pattern matches one reference anywhere inside a string value.
var pattern = regexp.MustCompile(`\{\{vault:([A-Za-z0-9_.-]{1,64})\}\}`)

// Ref returns the reference to the secret name: "{{vault:" + name + "}}".
func Ref(name string) string { return "{{vault:" + name + "}}" }

// Names returns the sorted names params refers to, at any depth.
func Names(params map[string]any) []string {
	names := map[string]bool{}
	collect(params, names)
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// collect adds the secret names referenced anywhere in v to names.
func collect(v any, names map[string]bool) {
	switch x := v.(type) {
	case string:
		for _, m := range pattern.FindAllStringSubmatch(x, -1) {
			names[m[1]] = true
		}
	case []any:
		for _, e := range x {
			collect(e, names)
		}
	case map[string]any:
		for _, e := range x {
			collect(e, names)
		}
	}
}

// Substitute returns a deep copy of v with each reference replaced by
// values[name] ("" for a name values lacks).
func Substitute(v any, values map[string]string) any {
	switch x := v.(type) {
	case string:
		return pattern.ReplaceAllStringFunc(x, func(ref string) string {
			return values[pattern.FindStringSubmatch(ref)[1]]
		})
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Substitute(e, values)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Substitute(e, values)
		}
		return out
	}
	return v
}
