package scope

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// Requirement is a set of OAuth scopes a call needs: all of All, or at
// least one of Any. Exactly one of the two is set.
type Requirement struct {
	All []string
	Any []string
}

func (r Requirement) empty() bool { return r.All == nil && r.Any == nil }

// When adds a requirement to the calls of a tool whose arguments match
// Args: for every argument name in Args, some top-level argument of that
// name (compared as normalize.Name compares tool names) holds, anywhere
// inside its value, a string, number or boolean that matches one of the
// patterns. Patterns are compared after normalize.Name too, and '*' in a
// pattern matches any run of characters.
type When struct {
	Args map[string][]string
	Requirement
}

// Tool is the scope requirement of one tool: its own Requirement (when
// empty, the Config's Default applies), plus the requirement of every
// When that matches the call's arguments.
type Tool struct {
	Name string
	Requirement
	When []When
}

// Config is a scope policy in Go. Tools not named in Tools need Default;
// a nil Default means they need no scope.
type Config struct {
	Tools   []Tool
	Default *Requirement
}

// Policy is a compiled scope policy. It is immutable and safe for
// concurrent use.
type Policy struct {
	tools map[string]*tool
	def   *req
}

type req struct {
	all    bool
	scopes []string
}

type argPattern struct {
	key  string   // normalized
	vals []string // normalized globs
}

type when struct {
	args []argPattern
	req  req
}

type tool struct {
	base *req // own requirement, else the default (may be nil)
	when []when
}

// Decision is the outcome of [Policy.Check].
type Decision struct {
	// Allowed: the granted scopes cover Required.
	Allowed bool
	// Required is every scope the call needs, in the order the policy names
	// them, for a WWW-Authenticate challenge (MCP authorization, step-up):
	// every scope of an "all" requirement; of an "any" requirement, the
	// first granted one, else its first alternative.
	Required []string
	// Missing is Required less the granted scopes.
	Missing []string
}

// New compiles c. Every scope must be an RFC 6749 §3.3 scope-token, no
// scope list may be empty, a requirement sets exactly one of All and Any,
// and no two tools share a normalized name. Errors are *Error values that
// name the field (Error.Path) and wrap a sentinel.
func New(c Config) (*Policy, error) {
	p := &Policy{tools: make(map[string]*tool, len(c.Tools))}
	if c.Default != nil {
		r, err := compileReq(*c.Default, "default")
		if err != nil {
			return nil, err
		}
		p.def = &r
	}
	seen := map[string]int{}
	for i, t := range c.Tools {
		path := fmt.Sprintf("tools[%d]", i)
		n := normalize.Name(t.Name)
		if n == "" {
			return nil, errPath(path+".name", ErrEmpty, "a tool needs a name")
		}
		if strings.Contains(n, "*") {
			return nil, errPath(path+".name", ErrToolName, "tool %q: '*' is not a wildcard (tool names are exact): name each tool", clip(t.Name))
		}
		if j, dup := seen[n]; dup {
			return nil, errPath(path+".name", ErrDuplicateTool, "tool %q is named twice (tools[%d] also normalizes to %q)", clip(t.Name), j, n)
		}
		seen[n] = i
		ct, err := p.compileTool(t, path)
		if err != nil {
			return nil, err
		}
		p.tools[n] = ct
	}
	return p, nil
}

func (p *Policy) compileTool(t Tool, path string) (*tool, error) {
	ct := &tool{base: p.def}
	if !t.Requirement.empty() {
		r, err := compileReq(t.Requirement, path)
		if err != nil {
			return nil, err
		}
		ct.base = &r
	}
	for k, w := range t.When {
		wp := fmt.Sprintf("%s.when[%d]", path, k)
		if len(w.Args) == 0 {
			return nil, errPath(wp+".args", ErrEmpty, "a when needs at least one argument pattern")
		}
		r, err := compileReq(w.Requirement, wp)
		if err != nil {
			return nil, err
		}
		cw := when{req: r}
		keys := make([]string, 0, len(w.Args))
		for name := range w.Args {
			keys = append(keys, name)
		}
		sort.Strings(keys)
		seen := map[string]string{}
		for _, name := range keys {
			ap, err := compileArg(name, w.Args[name], wp+".args."+name)
			if err != nil {
				return nil, err
			}
			if other, dup := seen[ap.key]; dup {
				return nil, errPath(wp+".args."+name, ErrDuplicateArg, "argument %q is named twice (%q also normalizes to %q)", clip(name), clip(other), ap.key)
			}
			seen[ap.key] = name
			cw.args = append(cw.args, ap)
		}
		ct.when = append(ct.when, cw)
	}
	return ct, nil
}

func compileArg(name string, vals []string, path string) (argPattern, error) {
	ap := argPattern{key: normalize.Name(name)}
	if ap.key == "" {
		return ap, errPath(path, ErrEmpty, "an argument pattern needs an argument name")
	}
	if len(vals) == 0 {
		return ap, errPath(path, ErrEmpty, "argument %q has no value patterns", clip(name))
	}
	for _, v := range vals {
		nv := normalize.Name(v)
		if nv == "" {
			return ap, errPath(path, ErrEmpty, "argument %q has an empty value pattern", clip(name))
		}
		ap.vals = append(ap.vals, nv)
	}
	return ap, nil
}

func compileReq(r Requirement, path string) (req, error) {
	switch {
	case r.All != nil && r.Any != nil:
		return req{}, errPath(path, ErrRequirement, "set one of all and any, not both")
	case r.All == nil && r.Any == nil:
		return req{}, errPath(path, ErrEmpty, "a requirement needs all or any")
	}
	cr := req{all: r.All != nil, scopes: r.All}
	name := path + ".all"
	if !cr.all {
		cr.scopes, name = r.Any, path+".any"
	}
	if len(cr.scopes) == 0 {
		return req{}, errPath(name, ErrEmpty, "empty scope list")
	}
	for i, s := range cr.scopes {
		if err := ValidToken(s); err != nil {
			return req{}, errPath(fmt.Sprintf("%s[%d]", name, i), ErrSyntax, "%s", err.(*Error).Msg)
		}
	}
	cr.scopes = slices.Clone(cr.scopes)
	return cr, nil
}

// Check decides whether a token granting the scopes granted may call tool
// (as received; it is normalized here) with args (the raw JSON object of
// the call's arguments; absent or null is an empty object). Scopes compare
// exactly (RFC 6749 §3.3: case-sensitive). The error is non-nil only when
// args is not one JSON object; the caller must then deny.
func (p *Policy) Check(toolName string, args json.RawMessage, granted []string) (Decision, error) {
	var d Decision
	t := p.tools[normalize.Name(toolName)]
	base := p.def
	if t != nil {
		base = t.base
	}
	if base != nil {
		d.Required = base.need(d.Required, granted)
	}
	if t != nil && len(t.when) > 0 {
		hits, err := t.matches(args)
		if err != nil {
			return Decision{}, err
		}
		for i, w := range t.when {
			if hits[i] {
				d.Required = w.req.need(d.Required, granted)
			}
		}
	}
	for _, s := range d.Required {
		if !slices.Contains(granted, s) {
			d.Missing = append(d.Missing, s)
		}
	}
	d.Allowed = len(d.Missing) == 0
	return d, nil
}

// ArgRules reports whether the arguments of a call to toolName can
// change its requirement (the tool has a When): callers that compute the
// arguments a handler will receive (schema defaults) need to only then.
func (p *Policy) ArgRules(toolName string) bool {
	t := p.tools[normalize.Name(toolName)]
	return t != nil && len(t.when) > 0
}

// Listable reports whether a token granting granted meets the tool's own
// requirement (or the default), so that some call to it can pass: the
// tools/list filter. Argument rules can still refuse a particular call.
func (p *Policy) Listable(toolName string, granted []string) bool {
	base := p.def
	if t := p.tools[normalize.Name(toolName)]; t != nil {
		base = t.base
	}
	if base == nil {
		return true
	}
	for _, s := range base.need(nil, granted) {
		if !slices.Contains(granted, s) {
			return false
		}
	}
	return true
}

// need appends the scopes r needs to out (without duplicates).
func (r *req) need(out, granted []string) []string {
	if r.all {
		for _, s := range r.scopes {
			out = appendNew(out, s)
		}
		return out
	}
	for _, s := range r.scopes {
		if slices.Contains(granted, s) {
			return appendNew(out, s)
		}
	}
	return appendNew(out, r.scopes[0])
}

func appendNew(out []string, s string) []string {
	if slices.Contains(out, s) {
		return out
	}
	return append(out, s)
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
