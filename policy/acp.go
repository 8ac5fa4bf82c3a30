package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// ACPVersion is the only ACP policy version this package accepts (ACP §5.1).
const ACPVersion = "1"

// maxACPTimeout bounds a rule's ask timeout.
const maxACPTimeout = 24 * time.Hour

// acpPolicy is a compiled ACP rule list (ACP §5.1-5.3).
type acpPolicy struct {
	defaultAction Action
	rules         []acpRule
}

type acpRule struct {
	name     string // "rules[3]" for reasons and the audit log
	tool     string // normalized glob, "" = any
	category Category
	server   string // glob, "" = any
	serverF  string // foldValue(server): what deny and ask rules also match
	args     []acpArg
	action   Action
	level    Risk
	timeout  time.Duration
	rate     ratelimit.Rate
	tod      *timeOfDay
	line     int // of its action, for Lint
}

type acpArg struct {
	name, glob string
	folded     string // foldValue(glob): what deny and ask rules also match
	number     string // globNumber(glob): a number's value deny and ask rules also match
}

// timeOfDay is conditions.time_of_day: after <= t < before in loc, in
// minutes after midnight; after > before wraps around midnight; -1 = open.
type timeOfDay struct {
	after, before int
	loc           *time.Location
}

func (t *timeOfDay) contains(now time.Time) bool {
	l := now.In(t.loc)
	m := l.Hour()*60 + l.Minute()
	switch {
	case t.after < 0:
		return m < t.before
	case t.before < 0:
		return m >= t.after
	case t.after <= t.before:
		return m >= t.after && m < t.before
	}
	return m >= t.after || m < t.before
}

type acpDocYAML struct {
	Version       yaml.Node     `yaml:"version"`
	DefaultAction yaml.Node     `yaml:"default_action"`
	Rules         []acpRuleYAML `yaml:"rules"`
}

type acpRuleYAML struct {
	Match      *acpMatchYAML `yaml:"match"`
	Action     yaml.Node     `yaml:"action"`
	Level      yaml.Node     `yaml:"level"`
	Timeout    yaml.Node     `yaml:"timeout"`
	RateLimit  yaml.Node     `yaml:"rate_limit"`
	Conditions *acpCondYAML  `yaml:"conditions"`
}

type acpMatchYAML struct {
	Tool     yaml.Node `yaml:"tool"`
	Category yaml.Node `yaml:"category"`
	Server   yaml.Node `yaml:"server"`
	Args     yaml.Node `yaml:"args"`
}

type acpCondYAML struct {
	TimeOfDay *acpTimeYAML `yaml:"time_of_day"`
}

type acpTimeYAML struct {
	After    yaml.Node `yaml:"after"`
	Before   yaml.Node `yaml:"before"`
	Timezone yaml.Node `yaml:"timezone"`
}

func acpAction(n *yaml.Node, field string) (Action, error) {
	a, err := scalar(n, field)
	if err != nil {
		return 0, err
	}
	switch a {
	case "allow":
		return ActionAllow, nil
	case "ask":
		return ActionAsk, nil
	case "deny":
		return ActionBlock, nil
	}
	return 0, errAt(n, "unknown %s %q: want allow, ask or deny", field, clip(a))
}

// acp compiles an ACP document. Methods keep the AIP default safe list.
func (c *compiler) acp(d *acpDocYAML) error {
	if !present(&d.Version) {
		return &ParseError{Line: 1, Msg: `version is required in an ACP policy: want "1"`}
	}
	if v, err := scalar(&d.Version, "version"); err != nil {
		return err
	} else if v != ACPVersion {
		return errAt(&d.Version, "unknown ACP policy version %q: want %q", clip(v), ACPVersion)
	}
	a := &acpPolicy{defaultAction: ActionBlock}
	if present(&d.DefaultAction) {
		act, err := acpAction(&d.DefaultAction, "default_action")
		if err != nil {
			return err
		}
		a.defaultAction = act
		c.p.lines.defaultAction = d.DefaultAction.Line
	}
	for i := range d.Rules {
		r, err := c.acpRule(&d.Rules[i], i)
		if err != nil {
			return err
		}
		a.rules = append(a.rules, r)
	}
	c.p.acp = a
	c.p.name = "acp"
	c.p.allowedMethods = map[string]bool{}
	for _, m := range DefaultAllowedMethods {
		c.p.allowedMethods[m] = true
	}
	return nil
}

func (c *compiler) acpRule(y *acpRuleYAML, i int) (acpRule, error) {
	r := acpRule{name: fmt.Sprintf("rules[%d]", i), line: y.Action.Line}
	if !present(&y.Action) {
		return r, errAt(firstPresent(&y.Level, &y.Timeout, &y.RateLimit), "%s has no action", r.name)
	}
	var err error
	if r.action, err = acpAction(&y.Action, "action"); err != nil {
		return r, err
	}
	if m := y.Match; m != nil {
		if err := c.acpMatch(&r, m); err != nil {
			return r, err
		}
	}
	if present(&y.Level) {
		l, err := scalar(&y.Level, "level")
		if err != nil {
			return r, err
		}
		if Risk(l).Rank() == 0 {
			return r, errAt(&y.Level, "%s: unknown level %q: want low, medium, high or critical", r.name, clip(l))
		}
		r.level = Risk(l)
	}
	if present(&y.Timeout) {
		var secs int
		if y.Timeout.Kind != yaml.ScalarNode || y.Timeout.Decode(&secs) != nil || secs <= 0 || time.Duration(secs)*time.Second > maxACPTimeout {
			return r, errAt(&y.Timeout, "%s: timeout must be a whole number of seconds between 1 and %d", r.name, int(maxACPTimeout/time.Second))
		}
		r.timeout = time.Duration(secs) * time.Second
	}
	if present(&y.RateLimit) {
		s, err := scalar(&y.RateLimit, "rate_limit")
		if err != nil {
			return r, err
		}
		if r.rate, err = ratelimit.ParseRate(s); err != nil {
			pe := errAt(&y.RateLimit, "%s: %s", r.name, strings.TrimPrefix(err.Error(), "ratelimit: "))
			pe.Err = err
			return r, pe
		}
	}
	if y.Conditions != nil && y.Conditions.TimeOfDay != nil {
		if r.tod, err = timeCondition(y.Conditions.TimeOfDay, r.name); err != nil {
			return r, err
		}
	}
	return r, nil
}

func (c *compiler) acpMatch(r *acpRule, m *acpMatchYAML) error {
	if present(&m.Tool) {
		t, err := scalar(&m.Tool, "match.tool")
		if err != nil {
			return err
		}
		// Normalize around the wildcards, so "ＳＥＮＤ_*" is "send_*".
		parts := strings.Split(t, "*")
		for i, p := range parts {
			parts[i] = normalize.Name(p)
		}
		if r.tool = strings.Join(parts, "*"); r.tool == "" {
			return errAt(&m.Tool, "%s: match.tool is empty after normalization", r.name)
		}
	}
	if present(&m.Category) {
		cat, err := scalar(&m.Category, "match.category")
		if err != nil {
			return err
		}
		switch Category(cat) {
		case CategoryRead, CategoryWrite, CategoryCommunication, CategoryFinancial, CategorySystem, CategoryPublic, CategoryPhysical:
			r.category = Category(cat)
		default:
			return errAt(&m.Category, "%s: unknown category %q: want read, write, communication, financial, system, public or physical", r.name, clip(cat))
		}
	}
	if present(&m.Server) {
		s, err := scalar(&m.Server, "match.server")
		if err != nil {
			return err
		}
		r.server, r.serverF = s, foldValue(s)
	}
	if present(&m.Args) {
		if m.Args.Kind != yaml.MappingNode {
			return errAt(&m.Args, "%s: match.args must map argument names to values or globs", r.name)
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(m.Args.Content); i += 2 {
			k, v := m.Args.Content[i], m.Args.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Value == "" || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				return errAt(k, "%s: match.args entries must be name: value", r.name)
			}
			if seen[k.Value] {
				return errAt(k, "%s: argument %q is listed twice", r.name, clip(k.Value))
			}
			if strings.Contains(normalize.Name(k.Value), "*") { // also "＊" and "﹡", which NFKC folds to '*'
				// A glob here would name no argument: a deny rule that applies to nothing.
				return errAt(k, "%s: match.args name %q: '*' is not a wildcard in argument names (they are exact; values are globs)", r.name, clip(k.Value))
			}
			seen[k.Value] = true
			r.args = append(r.args, acpArg{name: k.Value, glob: v.Value, folded: foldValue(v.Value), number: globNumber(v.Value)})
		}
	}
	return nil
}

func timeCondition(y *acpTimeYAML, rule string) (*timeOfDay, error) {
	t := &timeOfDay{after: -1, before: -1, loc: time.UTC}
	var err error
	if present(&y.After) {
		if t.after, err = clockMinutes(&y.After, rule, "after"); err != nil {
			return nil, err
		}
	}
	if present(&y.Before) {
		if t.before, err = clockMinutes(&y.Before, rule, "before"); err != nil {
			return nil, err
		}
	}
	if t.after < 0 && t.before < 0 {
		return nil, errAt(firstPresent(&y.Timezone), "%s: time_of_day needs after, before or both", rule)
	}
	if present(&y.Timezone) {
		z, err := scalar(&y.Timezone, "timezone")
		if err != nil {
			return nil, err
		}
		if z == "" || z == "Local" {
			return nil, errAt(&y.Timezone, "%s: timezone %q is not an IANA zone name (write one, such as Europe/Berlin or UTC)", rule, z)
		}
		if t.loc, err = time.LoadLocation(z); err != nil {
			return nil, errAt(&y.Timezone, "%s: cannot load IANA timezone %q: unknown zone, or the program has no zone database (import _ \"time/tzdata\" in package main)", rule, clip(z))
		}
	}
	return t, nil
}

func clockMinutes(n *yaml.Node, rule, field string) (int, error) {
	s, err := scalar(n, field)
	if err != nil {
		return 0, err
	}
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || len(h) != 2 || len(m) != 2 || err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, errAt(n, "%s: time_of_day.%s %q is not HH:MM (00:00 to 23:59)", rule, field, clip(s))
	}
	return hh*60 + mm, nil
}
