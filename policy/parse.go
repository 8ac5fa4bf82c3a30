package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// ParseError is a problem in a policy document, with its position (1-based;
// Col is 0 when the YAML parser did not report one).
type ParseError struct {
	Line, Col int
	Msg       string
	Err       error // the underlying error, if any (a regexp or rate error)
}

func (e *ParseError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("policy: line %d, column %d: %s", e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("policy: line %d: %s", e.Line, e.Msg)
	}
	return "policy: " + e.Msg
}

func (e *ParseError) Unwrap() error { return e.Err }

func errAt(n *yaml.Node, format string, args ...any) *ParseError {
	e := &ParseError{Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

// Options adjust how a policy is compiled. The zero value (or nil) uses the
// process's home and working directories.
type Options struct {
	// Home is the directory "~" and "$HOME" stand for, in protected paths
	// and in arguments. Default: os.UserHomeDir.
	Home string
	// WorkDir is the directory relative paths in arguments are resolved
	// against. Default: os.Getwd.
	WorkDir string
}

// Parse compiles an AIP v1alpha1 AgentPolicy document, or an ACP v0.2 rule
// list (version, default_action, rules; told apart by the top-level keys,
// and a document that mixes both is refused). Parsing is strict:
// unknown fields, an unknown apiVersion or kind, a missing metadata.name, a
// regex that does not compile, a malformed rate limit and tool rules that
// collide after normalization are all errors, reported as *ParseError with
// the line and column. The home and working directories are resolved here,
// once, so Evaluate never makes a system call.
func Parse(data []byte) (*Policy, error) { return ParseWith(data, nil) }

// ParseWith is [Parse] with options.
func ParseWith(data []byte, opts *Options) (*Policy, error) {
	return parse(data, opts, "")
}

// Load reads and compiles the policy file at path. The file itself becomes a
// protected path (AIP §8.1), by its absolute path and, when it is reached
// through a symbolic link, by its resolved path too.
func Load(path string) (*Policy, error) { return LoadWith(path, nil) }

// LoadWith is [Load] with options.
func LoadWith(path string, opts *Options) (*Policy, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicySize+1))
	if err != nil {
		return nil, fmt.Errorf("policy: reading %s: %w", path, err)
	}
	p, err := parse(data, opts, abs)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	return p, nil
}

func parse(data []byte, opts *Options, file string) (*Policy, error) {
	if len(data) > MaxPolicySize {
		return nil, &ParseError{Msg: fmt.Sprintf("document is larger than %d bytes", MaxPolicySize)}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if err == io.EOF {
			return nil, &ParseError{Msg: "empty document: want an AgentPolicy"}
		}
		return nil, yamlError(err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, yamlError(err, data)
		}
		return nil, errAt(&extra, "more than one YAML document: a policy file holds exactly one policy")
	}
	shape, err := documentShape(&root)
	if err != nil {
		return nil, err
	}
	env, err := pathEnv(opts)
	if err != nil {
		return nil, err
	}
	c := compiler{p: &Policy{path: file, env: env}}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if shape == shapeACP {
		var doc acpDocYAML
		if err := strict.Decode(&doc); err != nil {
			return nil, yamlError(err, data)
		}
		if err := c.acp(&doc); err != nil {
			return nil, err
		}
	} else {
		var doc docYAML
		if err := strict.Decode(&doc); err != nil {
			return nil, yamlError(err, data)
		}
		if err := c.doc(&doc); err != nil {
			return nil, err
		}
	}
	if file != "" {
		c.protectFile(file)
	}
	c.p.pf = newPrefilter(c.p.protected)
	return c.p, nil
}

// yamlError turns a YAML error into a *ParseError from go-yaml's structured
// errors (*yaml.LoadError, *yaml.LoadErrors: stage, line, column), so the
// position is the one the parser reports for the offending token, not
// parsed out of a message. Scanner and parser errors get a hint a person
// can act on: a tab, or the indentation of the line they point at.
func yamlError(err error, data []byte) *ParseError {
	var les *yaml.LoadErrors
	if errors.As(err, &les) && len(les.Errors) > 0 {
		return loadError(les.Errors[0], data, err)
	}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		return loadError(le, data, err)
	}
	return &ParseError{Msg: strings.TrimPrefix(err.Error(), "yaml: "), Err: err}
}

func loadError(le *yaml.LoadError, data []byte, err error) *ParseError {
	pe := &ParseError{Line: le.Mark.Line, Col: le.Mark.Column, Msg: le.Message, Err: err}
	if field, typ, ok := unknownField(le.Message); ok {
		if where, known := yamlTypes[typ]; known {
			pe.Msg = fmt.Sprintf("unknown field %q in %s (known: %s)", field, where[0], where[1])
		}
		return pe
	}
	if le.Stage != yaml.ScannerStage && le.Stage != yaml.ParserStage {
		return pe
	}
	if line, col, ok := tabAt(data, le.Mark.Line, le.Mark.Column); ok {
		pe.Line, pe.Col = line, col
		pe.Msg = "a tab character here: YAML indents with spaces only (" + le.Message + ")"
		return pe
	}
	if le.ContextMsg != "" && le.Mark.Index >= len(bytes.TrimRight(data, " \t\r\n")) {
		// The input ended inside a construct: point at where it opened.
		pe.Msg = le.Message + ": the input ends " + le.ContextMsg
		if le.ContextMark.Line > 0 && le.ContextMark.Index < le.Mark.Index {
			pe.Line, pe.Col = le.ContextMark.Line, le.ContextMark.Column
			pe.Msg += " that starts here and is never closed"
		}
		return pe
	}
	if indentProblem(le.Message) {
		pe.Msg = le.Message + ": check the indentation of this line against the lines above it"
	}
	return pe
}

// indentProblem reports whether a parser message is what go-yaml says
// about a line indented too far or not far enough.
func indentProblem(msg string) bool {
	for _, m := range []string{"did not find expected key", "mapping values are not allowed", "did not find expected '-' indicator", "block sequence entries are not allowed", "did not find expected node content"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// unknownField reads go-yaml's "field X not found in type policy.T".
func unknownField(msg string) (field, typ string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "field ")
	if !ok {
		return "", "", false
	}
	field, typ, ok = strings.Cut(rest, " not found in type policy.")
	return field, typ, ok
}

// tabAt finds a tab in the indentation of the line a scanner or parser error
// points at (1-based), or at the error's own column: YAML forbids tabs in
// indentation (YAML 1.2 §6.1), and go-yaml reports one only as "found
// character that cannot start any token" or a misplaced key.
func tabAt(data []byte, line, col int) (int, int, bool) {
	if line < 1 {
		return 0, 0, false
	}
	lines := bytes.SplitN(data, []byte("\n"), line+1)
	if len(lines) < line {
		return 0, 0, false
	}
	text := lines[line-1]
	if col >= 1 && col <= len(text) && text[col-1] == '\t' {
		return line, col, true
	}
	indent := len(text) - len(bytes.TrimLeft(text, " \t"))
	if i := bytes.IndexByte(text[:indent], '\t'); i >= 0 {
		return line, i + 1, true
	}
	return 0, 0, false
}

type shape int

const (
	shapeAIP shape = iota
	shapeACP
)

var (
	aipKeys = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "spec": true}
	acpKeys = map[string]bool{"version": true, "default_action": true, "rules": true}
)

// documentShape tells an AIP AgentPolicy from an ACP rule list by their
// top-level keys; a document with keys of both is refused.
func documentShape(root *yaml.Node) (shape, error) {
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return shapeAIP, nil // the strict decoder reports what is wrong
	}
	m := root.Content[0]
	var aip, acp *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if aipKeys[k.Value] && aip == nil {
			aip = k
		}
		if acpKeys[k.Value] && acp == nil {
			acp = k
		}
	}
	switch {
	case aip != nil && acp != nil:
		later := aip
		if acp.Line > aip.Line {
			later = acp
		}
		return 0, errAt(later, "the document mixes AIP keys (%s) and ACP keys (%s): a policy is one or the other", aip.Value, acp.Value)
	case acp != nil:
		return shapeACP, nil
	}
	return shapeAIP, nil
}

// yamlTypes names the decoding types in errors, with their known fields.
var yamlTypes = map[string][2]string{
	"docYAML":        {"the document", "apiVersion, kind, metadata, spec"},
	"metaYAML":       {"metadata", "name, version, owner"},
	"specYAML":       {"spec", "mode, allowed_tools, allowed_methods, denied_methods, tool_rules, protected_paths, strict_args_default, dlp"},
	"toolRuleYAML":   {"a tool rule", "tool, action, rate_limit, strict_args, allow_args"},
	"dlpYAML":        {"spec.dlp", "enabled, detect_encoding, filter_stderr, patterns"},
	"dlpPatternYAML": {"a dlp pattern", "name, regex"},
	"acpDocYAML":     {"the ACP policy", "version, default_action, rules"},
	"acpRuleYAML":    {"an ACP rule", "match, action, level, timeout, rate_limit, conditions"},
	"acpMatchYAML":   {"match", "tool, category, server, args"},
	"acpCondYAML":    {"conditions", "time_of_day"},
	"acpTimeYAML":    {"time_of_day", "after, before, timezone"},
}

func pathEnv(opts *Options) (normalize.PathEnv, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir() // an unknown home is reported only if "~" is used
	}
	if o.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return normalize.PathEnv{}, &ParseError{Msg: "cannot resolve the working directory for protected paths (set Options.WorkDir)", Err: err}
		}
		o.WorkDir = wd
	}
	env, err := normalize.NewPathEnv(o.Home, o.WorkDir)
	if err != nil {
		return normalize.PathEnv{}, &ParseError{Msg: strings.TrimPrefix(err.Error(), "normalize: "), Err: err}
	}
	return env, nil
}

// The document as YAML sees it. yaml.Node fields keep positions for errors;
// struct fields are checked for unknown keys by KnownFields.
type docYAML struct {
	APIVersion yaml.Node `yaml:"apiVersion"`
	Kind       yaml.Node `yaml:"kind"`
	Metadata   *metaYAML `yaml:"metadata"`
	Spec       *specYAML `yaml:"spec"`
}

type metaYAML struct {
	Name    yaml.Node `yaml:"name"`
	Version yaml.Node `yaml:"version"`
	Owner   yaml.Node `yaml:"owner"`
}

type specYAML struct {
	Mode              yaml.Node      `yaml:"mode"`
	AllowedTools      yaml.Node      `yaml:"allowed_tools"`
	AllowedMethods    yaml.Node      `yaml:"allowed_methods"`
	DeniedMethods     yaml.Node      `yaml:"denied_methods"`
	ToolRules         []toolRuleYAML `yaml:"tool_rules"`
	ProtectedPaths    yaml.Node      `yaml:"protected_paths"`
	StrictArgsDefault yaml.Node      `yaml:"strict_args_default"`
	DLP               *dlpYAML       `yaml:"dlp"`
}

type toolRuleYAML struct {
	Tool       yaml.Node `yaml:"tool"`
	Action     yaml.Node `yaml:"action"`
	RateLimit  yaml.Node `yaml:"rate_limit"`
	StrictArgs yaml.Node `yaml:"strict_args"`
	AllowArgs  yaml.Node `yaml:"allow_args"`
}

type dlpYAML struct {
	Enabled        yaml.Node        `yaml:"enabled"`
	DetectEncoding yaml.Node        `yaml:"detect_encoding"`
	FilterStderr   yaml.Node        `yaml:"filter_stderr"`
	Patterns       []dlpPatternYAML `yaml:"patterns"`
}

type dlpPatternYAML struct {
	Name  yaml.Node `yaml:"name"`
	Regex yaml.Node `yaml:"regex"`
}

// present reports whether a field was written with a non-null value.
func present(n *yaml.Node) bool { return n.Kind != 0 && n.Tag != "!!null" }

func scalar(n *yaml.Node, field string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errAt(n, "%s must be a string", field)
	}
	return n.Value, nil
}

func boolean(n *yaml.Node, field string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, errAt(n, "%s must be true or false", field)
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, errAt(n, "%s must be true or false", field)
	}
	return b, nil
}

// list returns the scalar items of a sequence node (nil for an absent or
// null field).
func list(n *yaml.Node, field string) ([]*yaml.Node, error) {
	if !present(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(n, "%s must be a list of strings", field)
	}
	for _, it := range n.Content {
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" {
			return nil, errAt(it, "%s must be a list of strings", field)
		}
	}
	return n.Content, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
