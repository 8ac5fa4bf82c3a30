package policy

import (
	"regexp"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// APIVersion and Kind are the only document header values this package accepts (AIP §3.2, §7.3).
const (
	APIVersion = "aip.io/v1alpha1"
	Kind       = "AgentPolicy"
)

// Limits on policy content, checked by [Parse]. Go's regexp is RE2, linear in
// the input, so patterns are bounded by length rather than by heuristics
// (DESIGN §3 item 10).
const (
	MaxPatternLen = 4096    // bytes of one allow_args or DLP regex
	MaxArgLen     = 1 << 20 // bytes of STRING(value) matched against an allow_args regex
	MaxPolicySize = 4 << 20 // bytes of a policy document
)

// Mode is the enforcement mode of AIP §3.4.1.
type Mode uint8

const (
	Enforce Mode = iota // violations are blocked (the default)
	Monitor             // violations are logged and forwarded; see AIP §4.4
)

func (m Mode) String() string {
	if m == Monitor {
		return "monitor"
	}
	return "enforce"
}

// Action is a tool rule's action (AIP §3.5.1).
type Action uint8

const (
	ActionAllow Action = iota // the default
	ActionBlock
	ActionAsk
)

func (a Action) String() string {
	switch a {
	case ActionBlock:
		return "block"
	case ActionAsk:
		return "ask"
	}
	return "allow"
}

// DefaultAllowedMethods is the method allowlist used when a policy has no
// allowed_methods (AIP §3.4.3), plus the methods MCP 2026-07-28 clients send
// (server/discover, subscriptions/listen) and notifications/cancelled, MCP's
// spelling of the spec's "cancelled".
var DefaultAllowedMethods = []string{
	"initialize",
	"initialized",
	"ping",
	"tools/call",
	"tools/list",
	"completion/complete",
	"notifications/initialized",
	"notifications/progress",
	"notifications/message",
	"notifications/resources/updated",
	"notifications/resources/list_changed",
	"notifications/tools/list_changed",
	"notifications/prompts/list_changed",
	"cancelled",
	"notifications/cancelled",
	"server/discover",
	"subscriptions/listen",
}

// Policy is a compiled AIP AgentPolicy. It is immutable once built and safe
// for concurrent use; [Policy.Evaluate] does no I/O.
type Policy struct {
	name, version, owner string
	path                 string // the file Load read, "" after Parse
	mode                 Mode
	allowedTools         map[string]bool
	allowAllMethods      bool
	allowedMethods       map[string]bool
	deniedMethods        map[string]bool
	rules                map[string]*rule
	strictDefault        bool
	env                  normalize.PathEnv
	protected            []protectedPath
	pf                   prefilter // literals of protected, for the fast path
	dlp                  DLP
	acp                  *acpPolicy // non-nil for an ACP rule list
	lines                lintLines  // source lines for Lint
}

// rule is a compiled tool rule.
type rule struct {
	tool     string // normalized
	action   Action
	rate     ratelimit.Rate
	hasRate  bool
	strict   bool            // strict_args, or strict_args_default when unset
	args     []argRule       // sorted by name
	declared map[string]bool // names in allow_args
	line     int             // of its tool: key, for Lint
}

type argRule struct {
	name    string
	pattern string
	re      *regexp.Regexp
}

// DLP is the dlp block of a policy (AIP §3.6), validated: every pattern
// has a non-empty unique name and a regex that compiles.
type DLP struct {
	Enabled        bool // true when the block is present, unless it says enabled: false
	DetectEncoding bool
	FilterStderr   bool
	Patterns       []DLPPattern
}

// DLPPattern is one named DLP regex.
type DLPPattern struct {
	Name  string
	Regex string
}

// IsACP reports whether the policy was an ACP rule list.
func (p *Policy) IsACP() bool { return p.acp != nil }

// StrictArgsDefault reports whether spec.strict_args_default is true: a
// tool without allow_args takes no arguments.
func (p *Policy) StrictArgsDefault() bool { return p != nil && p.strictDefault }

// Name returns metadata.name ("acp" for an ACP rule list).
func (p *Policy) Name() string { return p.name }

// Version returns metadata.version ("" if absent).
func (p *Policy) Version() string { return p.version }

// Owner returns metadata.owner ("" if absent).
func (p *Policy) Owner() string { return p.owner }

// Path returns the absolute path of the file [Load] read, "" for [Parse].
func (p *Policy) Path() string { return p.path }

// Mode returns the enforcement mode.
func (p *Policy) Mode() Mode { return p.mode }

// DLP returns a copy of the policy's DLP configuration; Enabled is false
// when the policy has no dlp block.
func (p *Policy) DLP() DLP {
	d := p.dlp
	d.Patterns = append([]DLPPattern(nil), p.dlp.Patterns...)
	return d
}

// RateLimit returns the rate_limit of the tool rule for tool (normalized
// here), and false when the tool has none. Rate limiting is the caller's
// first step (AIP §4.3 step 1): check it before [Policy.Evaluate] and use
// [RateLimitedDecision] when it refuses.
func (p *Policy) RateLimit(tool string) (ratelimit.Rate, bool) {
	if p == nil {
		return ratelimit.Rate{}, false
	}
	r := p.rules[normalize.Name(tool)]
	if r == nil || !r.hasRate {
		return ratelimit.Rate{}, false
	}
	return r.rate, true
}

// ToolRule describes a tool rule, for tools/list filtering and documentation.
type ToolRule struct {
	Tool       string // normalized
	Action     Action
	RateLimit  string // canonical text, "" if none
	StrictArgs bool
	Args       []string          // declared allow_args names, sorted
	Patterns   map[string]string // allow_args: each declared name's pattern, as written
}

// Rule returns the tool rule for tool (normalized here), if any.
func (p *Policy) Rule(tool string) (ToolRule, bool) {
	if p == nil {
		return ToolRule{}, false
	}
	r := p.rules[normalize.Name(tool)]
	if r == nil {
		return ToolRule{}, false
	}
	tr := ToolRule{Tool: r.tool, Action: r.action, StrictArgs: r.strict}
	if r.hasRate {
		tr.RateLimit = r.rate.String()
	}
	if len(r.args) > 0 {
		tr.Patterns = make(map[string]string, len(r.args))
	}
	for _, a := range r.args {
		tr.Args = append(tr.Args, a.name)
		tr.Patterns[a.name] = a.pattern
	}
	return tr, true
}

// MayAllow reports whether some call of tool could be allowed or asked for:
// false when the policy blocks the tool whatever its arguments. Middleware
// uses it to hide tools from tools/list.
func (p *Policy) MayAllow(tool string) bool {
	if p == nil {
		return false
	}
	if p.mode == Monitor {
		return true
	}
	n := normalize.Name(tool)
	if p.acp != nil {
		return p.acp.mayAllow(n)
	}
	if r := p.rules[n]; r != nil {
		return r.action != ActionBlock
	}
	return p.allowedTools[n]
}
