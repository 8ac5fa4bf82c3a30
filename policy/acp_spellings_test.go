package policy_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

const acpUnmatchable = `version: "1"
default_action: allow
rules:
  - match: {tool: run, args: {command: "rm *"}}
    action: deny
  - match: {tool: fetch, args: {url: "*evil.example*"}}
    action: ask
  - match: {tool: read_file, args: {path: "/srv/data/*"}}
    action: allow
  - match: {tool: read_file}
    action: deny
`

// TestACPDenyMatchesWhatItCannotRead: a deny or ask rule's match.args
// fails closed on a value it cannot match (over policy.MaxArgLen, nested
// too deeply, no JSON representation): before, such a value skipped the
// rule, so "rm -rf /" followed by a mebibyte of spaces reached the
// default allow. An allow rule still never matches such a value.
func TestACPDenyMatchesWhatItCannotRead(t *testing.T) {
	p, err := policy.Parse([]byte(acpUnmatchable))
	if err != nil {
		t.Fatal(err)
	}
	deep := any("https://evil.example/")
	for range 80 {
		deep = []any{deep}
	}
	cases := []struct {
		name, tool string
		args       map[string]any
		want       policy.Outcome
	}{
		{"deny, over the length bound", "run", map[string]any{"command": "rm -rf /" + strings.Repeat(" ", policy.MaxArgLen)}, policy.Block},
		{"deny, no JSON representation", "run", map[string]any{"command": math.NaN()}, policy.Block},
		{"ask, over the length bound", "fetch", map[string]any{"url": "https://ok.example/?" + strings.Repeat("a", policy.MaxArgLen)}, policy.Ask},
		{"ask, nested deeply", "fetch", map[string]any{"url": deep}, policy.Ask},
		{"allow, over the length bound", "read_file", map[string]any{"path": "/srv/data/" + strings.Repeat("a", policy.MaxArgLen)}, policy.Block},
		// Near misses.
		{"near miss, a long value under the bound", "run", map[string]any{"command": "ls " + strings.Repeat("a", 1<<16)}, policy.Allow},
		{"near miss, shallow nesting", "fetch", map[string]any{"url": []any{[]any{"https://ok.example/"}}}, policy.Allow},
		{"near miss, allowed path", "read_file", map[string]any{"path": "/srv/data/a.csv"}, policy.Allow},
		{"near miss, a number", "run", map[string]any{"command": json.Number("1")}, policy.Allow},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Args: c.args})
		if d.Outcome != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, d.Outcome, d.Reason, c.want)
		}
	}
}

const acpNumbers = `version: "1"
default_action: allow
rules:
  - match: {tool: pay, args: {amount: "1000000"}}
    action: deny
  - match: {tool: pay, args: {account: "0"}}
    action: ask
  - match: {tool: pay, args: {fee: "1.5"}}
    action: deny
`

// TestACPDenyMatchesNumberSpellings: a number reaches the handler as its
// value, so a deny or ask rule naming it matches every spelling of that
// value (1e6, 1E+6, 1000000.0, 10e5; -0 and 0.0 for 0), also inside an
// array: the exact text "1e6" skipped a deny rule for 1000000.
func TestACPDenyMatchesNumberSpellings(t *testing.T) {
	p, err := policy.Parse([]byte(acpNumbers))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		arg  string
		v    any
		want policy.Outcome
	}{
		{"amount", json.Number("1000000"), policy.Block},
		{"amount", json.Number("1e6"), policy.Block},
		{"amount", json.Number("1E+6"), policy.Block},
		{"amount", json.Number("1000000.0"), policy.Block},
		{"amount", json.Number("10e5"), policy.Block},
		{"amount", json.Number("1000000.000000000000000001"), policy.Block}, // a float64 handler reads 1000000
		{"amount", []any{json.Number("1.0e6")}, policy.Block},
		{"amount", float64(1e6), policy.Block},
		{"account", json.Number("-0"), policy.Ask},
		{"account", json.Number("0.0"), policy.Ask},
		{"account", json.Number("0e10"), policy.Ask},
		{"fee", json.Number("1.50"), policy.Block},
		{"fee", json.Number("15e-1"), policy.Block},
		// Near misses.
		{"amount", json.Number("999999"), policy.Allow},
		{"amount", json.Number("1.000001e6"), policy.Allow},
		{"amount", "1e6 EUR", policy.Allow}, // no strconv reading ("1e6" is one: TestACPDenyMatchesStringReadings)
		{"account", json.Number("10"), policy.Allow},
		{"fee", json.Number("1.05"), policy.Allow},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "pay", Args: map[string]any{c.arg: c.v}})
		if d.Outcome != c.want {
			t.Errorf("%s %v: %v (%s), want %v", c.arg, c.v, d.Outcome, d.Reason, c.want)
		}
	}
}

// TestACPDenyGlobThatIsANumber: a rule written with a number's other
// spelling ("1e6") matches the value 1000000 too, in deny and ask rules.
func TestACPDenyGlobThatIsANumber(t *testing.T) {
	p, err := policy.Parse([]byte("version: \"1\"\ndefault_action: allow\nrules:\n  - match: {tool: pay, args: {amount: \"1e6\"}}\n    action: deny\n"))
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]policy.Outcome{"1000000": policy.Block, "1e6": policy.Block, "1000000.0": policy.Block, "1000001": policy.Allow, "16": policy.Allow} {
		if d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "pay", Args: map[string]any{"amount": json.Number(v)}}); d.Outcome != want {
			t.Errorf("amount %s: %v, want %v", v, d.Outcome, want)
		}
	}
}

const acpLimitedAllow = `version: "1"
default_action: deny
rules:
  - match: {tool: send_email, args: {to: "*@partner.example"}}
    action: allow
    rate_limit: "5/hour"
  - match: {tool: send_email, args: {to: "*@vendor.example"}}
    action: allow
    rate_limit: "9/hour"
  - match: {tool: send_email}
    action: allow
  - match: {tool: read_file, args: {path: "/srv/data/*"}}
    action: allow
    rate_limit: "1/minute"
`

// TestACPAllowRateLimitKeptForSpellings: an allow rule matches only the
// exact text, so "a@PARTNER.example" skipped the rate-limited rule for
// "*@partner.example" and reached the unlimited allow after it. It is
// still allowed (by that later rule) but counts in the first rule's
// bucket, as the exact spelling does; a spelling never makes an allow
// rule allow more (/SRV/data is not /srv/data).
func TestACPAllowRateLimitKeptForSpellings(t *testing.T) {
	p, err := policy.Parse([]byte(acpLimitedAllow))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, arg, v string
		want         policy.Outcome
		rule, rate   string
	}{
		{"send_email", "to", "a@partner.example", policy.Allow, "rules[0]", "5/hour"},
		{"send_email", "to", "a@PARTNER.example", policy.Allow, "rules[0]", "5/hour"},
		{"send_email", "to", "a@partner.example\u200b", policy.Allow, "rules[0]", "5/hour"},
		{"send_email", "to", "a@ｐａｒｔｎｅｒ.example", policy.Allow, "rules[0]", "5/hour"},
		{"send_email", "to", "a@Vendor.Example", policy.Allow, "rules[1]", "9/hour"},
		// Near misses: another address, and an allow rule never widened.
		{"send_email", "to", "a@other.example", policy.Allow, "rules[2]", ""},
		{"read_file", "path", "/srv/data/x", policy.Allow, "rules[3]", "1/minute"},
		{"read_file", "path", "/SRV/data/x", policy.Block, "default_action", ""},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Args: map[string]any{c.arg: c.v}})
		rate := ""
		if d.Rate.Valid() {
			rate = d.Rate.String()
		}
		if d.Outcome != c.want || d.Rule != c.rule || rate != c.rate {
			t.Errorf("%s %q: %v by %s at %q (%s), want %v by %s at %q", c.tool, c.v, d.Outcome, d.Rule, rate, d.Reason, c.want, c.rule, c.rate)
		}
	}
}

// TestACPServerRuleWithoutServer: a request that names no server cannot
// be checked against match.server: a deny or ask rule takes it, with a
// reason that says how to name the server; an allow rule does not.
func TestACPServerRuleWithoutServer(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: allow
rules:
  - match: {tool: deploy, server: "prod-*"}
    action: deny
  - match: {tool: read, server: "prod-*"}
    action: allow
  - match: {tool: read}
    action: ask
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, server string
		want         policy.Outcome
	}{
		{"deploy", "", policy.Block},
		{"deploy", "prod-eu", policy.Block},
		{"deploy", "staging", policy.Allow},
		{"read", "", policy.Ask},
		{"read", "prod-eu", policy.Allow},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Server: c.server})
		if d.Outcome != c.want {
			t.Errorf("%s on %q: %v (%s), want %v", c.tool, c.server, d.Outcome, d.Reason, c.want)
		}
		if c.server == "" && c.want == policy.Block && !strings.Contains(d.Reason, "Options.ServerName") {
			t.Errorf("%s on no server: reason %q does not say how to name the server", c.tool, d.Reason)
		}
	}
}

// TestACPDenyLongValueSpellings: past the length where normalize.Name is
// used (16 KiB), a value is still folded for case, invisible runes and
// fullwidth letters, so padding a command does not hide its spelling.
func TestACPDenyLongValueSpellings(t *testing.T) {
	p, err := policy.Parse([]byte(acpUnmatchable))
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat(" x", 20<<10)
	for cmd, want := range map[string]policy.Outcome{
		"RM -rf /" + pad:       policy.Block,
		"r\u200bm -rf /" + pad: policy.Block,
		"ｒｍ -rf /" + pad:       policy.Block,
		"\u3000rm -rf /" + pad: policy.Block,
		"%72m -rf /" + pad:     policy.Block,
		"ls -la" + pad:         policy.Allow,
		"format -rf /" + pad:   policy.Allow,
	} {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"command": cmd}})
		if d.Outcome != want {
			t.Errorf("%q…: %v, want %v", cmd[:12], d.Outcome, want)
		}
	}
}
