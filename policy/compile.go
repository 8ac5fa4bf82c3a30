package policy

import (
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// compiler turns the decoded YAML into a *Policy, checking every value.
type compiler struct {
	p *Policy
}

func (c *compiler) doc(d *docYAML) error {
	if !present(&d.APIVersion) {
		return &ParseError{Line: 1, Msg: "apiVersion is required: want " + APIVersion}
	}
	v, err := scalar(&d.APIVersion, "apiVersion")
	if err != nil {
		return err
	}
	if v != APIVersion {
		return errAt(&d.APIVersion, "unknown apiVersion %q: want %s", clip(v), APIVersion)
	}
	if !present(&d.Kind) {
		return &ParseError{Line: 1, Msg: "kind is required: want " + Kind}
	}
	k, err := scalar(&d.Kind, "kind")
	if err != nil {
		return err
	}
	if k != Kind {
		return errAt(&d.Kind, "unknown kind %q: want %s", clip(k), Kind)
	}
	if d.Metadata == nil {
		return &ParseError{Line: 1, Msg: "metadata is required (with metadata.name)"}
	}
	if err := c.metadata(d.Metadata, &d.Kind); err != nil {
		return err
	}
	if d.Spec == nil {
		return &ParseError{Line: 1, Msg: "spec is required"}
	}
	return c.spec(d.Spec)
}

func (c *compiler) metadata(m *metaYAML, near *yaml.Node) error {
	if !present(&m.Name) {
		return errAt(near, "metadata.name is required")
	}
	name, err := scalar(&m.Name, "metadata.name")
	if err != nil {
		return err
	}
	if strings.TrimSpace(name) == "" {
		return errAt(&m.Name, "metadata.name must not be empty")
	}
	c.p.name = name
	if present(&m.Version) {
		if c.p.version, err = scalar(&m.Version, "metadata.version"); err != nil {
			return err
		}
	}
	if present(&m.Owner) {
		if c.p.owner, err = scalar(&m.Owner, "metadata.owner"); err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) spec(s *specYAML) error {
	p := c.p
	if present(&s.Mode) {
		p.lines.mode = s.Mode.Line
		m, err := scalar(&s.Mode, "spec.mode")
		if err != nil {
			return err
		}
		switch m {
		case "enforce":
			p.mode = Enforce
		case "monitor":
			p.mode = Monitor
		default:
			return errAt(&s.Mode, "unknown spec.mode %q: want enforce or monitor", clip(m))
		}
	}
	if present(&s.StrictArgsDefault) {
		b, err := boolean(&s.StrictArgsDefault, "spec.strict_args_default")
		if err != nil {
			return err
		}
		p.strictDefault = b
	}
	var err error
	if p.allowedTools, err = nameSet(&s.AllowedTools, "spec.allowed_tools"); err != nil {
		return err
	}
	if p.deniedMethods, err = nameSet(&s.DeniedMethods, "spec.denied_methods"); err != nil {
		return err
	}
	if present(&s.AllowedMethods) {
		if p.allowedMethods, err = nameSet(&s.AllowedMethods, "spec.allowed_methods"); err != nil {
			return err
		}
	} else {
		p.allowedMethods = map[string]bool{}
		for _, m := range DefaultAllowedMethods {
			p.allowedMethods[m] = true
		}
	}
	p.allowAllMethods = p.allowedMethods["*"]
	p.lines.methods = s.AllowedMethods.Line
	p.rules = make(map[string]*rule, len(s.ToolRules))
	for i := range s.ToolRules {
		if err := c.toolRule(&s.ToolRules[i]); err != nil {
			return err
		}
	}
	if err := c.protectedPaths(&s.ProtectedPaths); err != nil {
		return err
	}
	if s.DLP != nil {
		return c.dlp(s.DLP)
	}
	return nil
}

// nameSet normalizes a list of names (AIP §4.1).
func nameSet(n *yaml.Node, field string) (map[string]bool, error) {
	items, err := list(n, field)
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(items))
	for _, it := range items {
		name := normalize.Name(it.Value)
		if name == "" {
			return nil, errAt(it, "%s entry %q is empty after normalization", field, clip(it.Value))
		}
		if strings.Contains(name, "*") && (name != "*" || field != "spec.allowed_methods") {
			return nil, errAt(it, "%s entry %q: %s", field, clip(it.Value), notAWildcard(field))
		}
		set[name] = true
	}
	return set, nil
}

// notAWildcard says why a '*' in an AIP name is refused: names are exact
// (AIP §4.2 "normalized IN denied_methods", §4.3 tool lookup), the lone
// "*" of allowed_methods is the only wildcard (§3.4.3), and a '*' that
// never matches would leave a block, ask or denial that applies to
// nothing.
func notAWildcard(field string) string {
	const msg = "'*' is not a wildcard here (AIP names are exact; only allowed_methods has the lone \"*\")"
	switch field {
	case "spec.denied_methods":
		return msg + ": list each method to deny, or list only the methods to allow in allowed_methods"
	case "spec.allowed_methods":
		return msg + ": list each method, or \"*\" alone"
	}
	return msg + ": list each tool by its exact name"
}

func (c *compiler) toolRule(t *toolRuleYAML) error {
	if !present(&t.Tool) {
		return errAt(firstPresent(&t.Action, &t.RateLimit, &t.StrictArgs, &t.AllowArgs), "tool_rules entry has no tool")
	}
	raw, err := scalar(&t.Tool, "tool_rules[].tool")
	if err != nil {
		return err
	}
	r := &rule{tool: normalize.Name(raw), strict: c.p.strictDefault, line: t.Tool.Line}
	if r.tool == "" {
		return errAt(&t.Tool, "tool %q is empty after normalization", clip(raw))
	}
	if strings.Contains(r.tool, "*") {
		return errAt(&t.Tool, "tool %q: %s", clip(raw), notAWildcard("tool_rules"))
	}
	if _, dup := c.p.rules[r.tool]; dup {
		return errAt(&t.Tool, "duplicate tool rule: %q and an earlier rule both normalize to %q", clip(raw), r.tool)
	}
	if present(&t.Action) {
		a, err := scalar(&t.Action, "tool_rules[].action")
		if err != nil {
			return err
		}
		switch a {
		case "allow":
			r.action = ActionAllow
		case "block":
			r.action = ActionBlock
		case "ask":
			r.action = ActionAsk
		default:
			return errAt(&t.Action, "tool %q: unknown action %q: want allow, block or ask", r.tool, clip(a))
		}
	}
	if present(&t.RateLimit) {
		s, err := scalar(&t.RateLimit, "tool_rules[].rate_limit")
		if err != nil {
			return err
		}
		rate, err := ratelimit.ParseRate(s)
		if err != nil {
			pe := errAt(&t.RateLimit, "tool %q: %s", r.tool, strings.TrimPrefix(err.Error(), "ratelimit: "))
			pe.Err = err
			return pe
		}
		r.rate, r.hasRate = rate, true
	}
	if present(&t.StrictArgs) {
		if r.strict, err = boolean(&t.StrictArgs, "tool_rules[].strict_args"); err != nil {
			return err
		}
	}
	if err := c.allowArgs(r, &t.AllowArgs); err != nil {
		return err
	}
	c.p.rules[r.tool] = r
	return nil
}

func (c *compiler) allowArgs(r *rule, n *yaml.Node) error {
	r.declared = map[string]bool{}
	if !present(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return errAt(n, "tool %q: allow_args must map argument names to regexes", r.tool)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Value == "" {
			return errAt(k, "tool %q: allow_args keys must be non-empty argument names", r.tool)
		}
		if r.declared[k.Value] {
			return errAt(k, "tool %q: argument %q is listed twice in allow_args", r.tool, clip(k.Value))
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return errAt(v, "tool %q: allow_args %q must be a regex string", r.tool, clip(k.Value))
		}
		re, err := compileRegex(v, "tool "+quote(r.tool)+": allow_args "+quote(k.Value))
		if err != nil {
			return err
		}
		r.declared[k.Value] = true
		r.args = append(r.args, argRule{name: k.Value, pattern: v.Value, re: re})
	}
	sort.Slice(r.args, func(i, j int) bool { return r.args[i].name < r.args[j].name })
	return nil
}

// compileRegex compiles an RE2 pattern, bounded by MaxPatternLen.
func compileRegex(v *yaml.Node, what string) (*regexp.Regexp, error) {
	if len(v.Value) > MaxPatternLen {
		return nil, errAt(v, "%s: regex is %d bytes, longer than the %d allowed", what, len(v.Value), MaxPatternLen)
	}
	re, err := regexp.Compile(v.Value)
	if err != nil {
		pe := errAt(v, "%s: invalid regex: %s", what, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		pe.Err = err
		return nil, pe
	}
	return re, nil
}

func (c *compiler) dlp(d *dlpYAML) error {
	out := DLP{Enabled: true}
	var err error
	if present(&d.Enabled) {
		if out.Enabled, err = boolean(&d.Enabled, "spec.dlp.enabled"); err != nil {
			return err
		}
	}
	if present(&d.DetectEncoding) {
		if out.DetectEncoding, err = boolean(&d.DetectEncoding, "spec.dlp.detect_encoding"); err != nil {
			return err
		}
	}
	if present(&d.FilterStderr) {
		if out.FilterStderr, err = boolean(&d.FilterStderr, "spec.dlp.filter_stderr"); err != nil {
			return err
		}
	}
	if d.Patterns == nil {
		return errAt(firstPresent(&d.Enabled, &d.DetectEncoding, &d.FilterStderr), "spec.dlp.patterns is required when dlp is present")
	}
	seen := map[string]bool{}
	for _, pt := range d.Patterns {
		if !present(&pt.Name) {
			return errAt(firstPresent(&pt.Regex), "spec.dlp.patterns entry has no name")
		}
		name, err := scalar(&pt.Name, "spec.dlp.patterns[].name")
		if err != nil {
			return err
		}
		if strings.TrimSpace(name) == "" {
			return errAt(&pt.Name, "spec.dlp.patterns entry has an empty name")
		}
		if seen[name] {
			return errAt(&pt.Name, "dlp pattern %q is defined twice", clip(name))
		}
		seen[name] = true
		if !present(&pt.Regex) {
			return errAt(&pt.Name, "dlp pattern %q has no regex", clip(name))
		}
		if _, err := scalar(&pt.Regex, "spec.dlp.patterns[].regex"); err != nil {
			return err
		}
		if _, err := compileRegex(&pt.Regex, "dlp pattern "+quote(name)); err != nil {
			return err
		}
		out.Patterns = append(out.Patterns, DLPPattern{Name: name, Regex: pt.Regex.Value})
	}
	c.p.dlp = out
	return nil
}

// firstPresent returns the first node that was written, for error positions.
func firstPresent(ns ...*yaml.Node) *yaml.Node {
	for _, n := range ns {
		if n.Kind != 0 {
			return n
		}
	}
	return nil
}

// clip bounds user text quoted in errors.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

func quote(s string) string { return `"` + clip(s) + `"` }
