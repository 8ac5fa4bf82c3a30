package scope

// The YAML document, kept in this one file (the only one that imports a
// YAML library).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v4"
)

// The document's apiVersion and kind.
const (
	APIVersion = "gatehouse.dev/v1alpha1"
	Kind       = "ToolScopes"
)

// MaxDocumentBytes bounds a document Parse reads.
const MaxDocumentBytes = 1 << 20

// Parse compiles a ToolScopes document (see the package documentation).
// It is strict: unknown fields, duplicate keys, aliases, more than one
// document, an unknown apiVersion or kind, and everything New refuses are
// errors, as *Error with the line and column.
func Parse(data []byte) (*Policy, error) {
	if len(data) > MaxDocumentBytes {
		return nil, &Error{Err: ErrDocument, Msg: fmt.Sprintf("document of %d bytes exceeds %d", len(data), MaxDocumentBytes)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		return nil, yamlError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &Error{Line: extra.Line, Col: extra.Column, Err: ErrDocument, Msg: "more than one YAML document"}
	}
	r := reader{at: map[string]*yaml.Node{}}
	c, err := r.document(&root)
	if err != nil {
		return nil, err
	}
	p, err := New(c)
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			if n := r.at[se.Path]; n != nil {
				se.Line, se.Col = n.Line, n.Column
			}
		}
		return nil, err
	}
	return p, nil
}

// Load reads and parses the document at path.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	return Parse(data)
}

// yamlError is a YAML syntax error with the line and column the parser
// gives (go.yaml.in/yaml/v4's structured errors).
func yamlError(err error) error {
	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		le := les.Errors[0]
		return &Error{Line: le.Mark.Line, Col: le.Mark.Column, Err: ErrDocument, Msg: le.Message}
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return &Error{Line: le.Mark.Line, Col: le.Mark.Column, Err: ErrDocument, Msg: le.Message}
	}
	return &Error{Err: ErrDocument, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}

// reader walks the node tree, remembering the node of each path for New's
// errors.
type reader struct{ at map[string]*yaml.Node }

func at(n *yaml.Node, sentinel error, format string, args ...any) *Error {
	return &Error{Line: n.Line, Col: n.Column, Err: sentinel, Msg: fmt.Sprintf(format, args...)}
}

// fields checks that n is a mapping with only the allowed keys, each once,
// and returns the values by key.
func fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, at(n, ErrDocument, "%s must be a mapping", what)
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || !known(k.Value, allowed) {
			return nil, at(k, ErrUnknownField, "unknown field %q in %s (want one of %v)", clip(k.Value), what, allowed)
		}
		if out[k.Value] != nil {
			return nil, at(k, ErrDocument, "field %q appears twice in %s", k.Value, what)
		}
		if v.Kind == yaml.AliasNode {
			return nil, at(v, ErrDocument, "aliases are not allowed")
		}
		out[k.Value] = v
	}
	return out, nil
}

func known(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *reader) document(root *yaml.Node) (Config, error) {
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return Config{}, &Error{Line: root.Line, Col: root.Column, Err: ErrDocument, Msg: "empty document"}
	}
	f, err := fields(root.Content[0], "the document", "apiVersion", "kind", "default", "tools")
	if err != nil {
		return Config{}, err
	}
	for key, want := range map[string]string{"apiVersion": APIVersion, "kind": Kind} {
		n := f[key]
		if n == nil {
			return Config{}, at(root.Content[0], ErrDocument, "missing %s (want %q)", key, want)
		}
		if n.Kind != yaml.ScalarNode || n.Value != want {
			return Config{}, at(n, ErrDocument, "%s must be %q", key, want)
		}
	}
	var c Config
	if n := f["default"]; n != nil {
		d, err := r.requirement(n, "default", "default")
		if err != nil {
			return Config{}, err
		}
		c.Default = &d
	}
	if n := f["tools"]; n != nil {
		if n.Kind != yaml.SequenceNode {
			return Config{}, at(n, ErrDocument, "tools must be a list")
		}
		for i, tn := range n.Content {
			t, err := r.tool(tn, fmt.Sprintf("tools[%d]", i))
			if err != nil {
				return Config{}, err
			}
			c.Tools = append(c.Tools, t)
		}
	}
	return c, nil
}

func (r *reader) tool(n *yaml.Node, path string) (Tool, error) {
	f, err := fields(n, path, "name", "all", "any", "when")
	if err != nil {
		return Tool{}, err
	}
	r.at[path] = n
	var t Tool
	if f["name"] == nil {
		return Tool{}, at(n, ErrEmpty, "%s has no name", path)
	}
	if t.Name, err = r.scalar(f["name"], path+".name"); err != nil {
		return Tool{}, err
	}
	if f["all"] != nil || f["any"] != nil {
		if t.Requirement, err = r.lists(f, path); err != nil {
			return Tool{}, err
		}
	}
	if wn := f["when"]; wn != nil {
		if wn.Kind != yaml.SequenceNode {
			return Tool{}, at(wn, ErrDocument, "when must be a list")
		}
		for k, w := range wn.Content {
			cw, err := r.when(w, fmt.Sprintf("%s.when[%d]", path, k))
			if err != nil {
				return Tool{}, err
			}
			t.When = append(t.When, cw)
		}
	}
	return t, nil
}

func (r *reader) when(n *yaml.Node, path string) (When, error) {
	f, err := fields(n, path, "args", "all", "any")
	if err != nil {
		return When{}, err
	}
	r.at[path] = n
	an := f["args"]
	if an == nil {
		return When{}, at(n, ErrEmpty, "%s has no args", path)
	}
	r.at[path+".args"] = an
	if an.Kind != yaml.MappingNode {
		return When{}, at(an, ErrDocument, "args must be a mapping of argument name to pattern(s)")
	}
	w := When{Args: map[string][]string{}}
	for i := 0; i+1 < len(an.Content); i += 2 {
		k, v := an.Content[i], an.Content[i+1]
		name, err := r.scalar(k, path+".args.key")
		if err != nil {
			return When{}, err
		}
		if _, dup := w.Args[name]; dup {
			return When{}, at(k, ErrDocument, "argument %q appears twice", clip(name))
		}
		r.at[path+".args."+name] = k
		if w.Args[name], err = r.strings(v, path+".args."+name, true); err != nil {
			return When{}, err
		}
	}
	w.Requirement, err = r.lists(f, path)
	return w, err
}

func (r *reader) requirement(n *yaml.Node, what, path string) (Requirement, error) {
	f, err := fields(n, what, "all", "any")
	if err != nil {
		return Requirement{}, err
	}
	r.at[path] = n
	return r.lists(f, path)
}

// lists reads the all and any fields of a requirement.
func (r *reader) lists(f map[string]*yaml.Node, path string) (Requirement, error) {
	var q Requirement
	var err error
	if n := f["all"]; n != nil {
		if q.All, err = r.strings(n, path+".all", false); err != nil {
			return q, err
		}
		q.All = nonNil(q.All)
	}
	if n := f["any"]; n != nil {
		if q.Any, err = r.strings(n, path+".any", false); err != nil {
			return q, err
		}
		q.Any = nonNil(q.Any)
	}
	return q, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// strings reads a list of scalars (or, with one, a single scalar).
func (r *reader) strings(n *yaml.Node, path string, one bool) ([]string, error) {
	r.at[path] = n
	if one && n.Kind == yaml.ScalarNode {
		s, err := r.scalar(n, path)
		return []string{s}, err
	}
	if n.Kind != yaml.SequenceNode {
		return nil, at(n, ErrDocument, "%s must be a list", path)
	}
	var out []string
	for i, e := range n.Content {
		s, err := r.scalar(e, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (r *reader) scalar(n *yaml.Node, path string) (string, error) {
	r.at[path] = n
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", at(n, ErrDocument, "%s must be a string", path)
	}
	switch n.Tag {
	case "!!str", "!!int", "!!float", "!!bool":
		return n.Value, nil
	}
	return "", at(n, ErrDocument, "%s has an unsupported tag %s", path, n.Tag)
}
