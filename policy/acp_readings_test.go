package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

const acpReadings = `version: "1"
default_action: allow
rules:
  - match: {tool: deploy, args: {env: "prod"}}
    action: deny
  - match: {tool: fetch, args: {host: "evil.example"}}
    action: deny
  - match: {tool: pay, args: {amount: "1000000"}}
    action: deny
  - match: {tool: pay, args: {count: "7"}}
    action: ask
  - match: {tool: rm, args: {force: "true"}}
    action: deny
  - match: {tool: rm, args: {dry_run: "false"}}
    action: ask
  - match: {tool: send, args: {to: "*@partner.example"}}
    action: allow
    rate_limit: "5/hour"
  - match: {tool: send}
    action: allow
`

// TestACPDenyMatchesStringReadings: a handler given a string reads it as
// more than its text. strconv reads "1e6", "1000000.0" and "+1000000" as
// the number 1000000 and "007", "0x7" and "0o7" as 7 (ParseFloat, and
// ParseInt with base 0), ParseBool reads "1" and "t" as true, a shell or
// a config loader drops the quotes around "\"prod\"", and a resolver reads
// "evil.example." as "evil.example". Each of these skipped a deny or ask
// rule naming the value, while the same value as a JSON number (or
// unquoted) was caught.
func TestACPDenyMatchesStringReadings(t *testing.T) {
	p, err := policy.Parse([]byte(acpReadings))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool string
		args map[string]any
		want policy.Outcome
	}{
		{"pay", map[string]any{"amount": "1e6"}, policy.Block},
		{"pay", map[string]any{"amount": "1000000.0"}, policy.Block},
		{"pay", map[string]any{"amount": "+1000000"}, policy.Block},
		{"pay", map[string]any{"amount": " 1E+6 "}, policy.Block},
		{"pay", map[string]any{"amount": "1_000_000"}, policy.Block},
		{"pay", map[string]any{"amount": []any{"1e6"}}, policy.Block},
		{"pay", map[string]any{"count": "007"}, policy.Ask},
		{"pay", map[string]any{"count": "0x7"}, policy.Ask},
		{"pay", map[string]any{"count": "0o7"}, policy.Ask},
		{"pay", map[string]any{"count": "7.0"}, policy.Ask},
		{"pay", map[string]any{"count": "'7'"}, policy.Ask},
		{"rm", map[string]any{"force": "1"}, policy.Block},
		{"rm", map[string]any{"force": "t"}, policy.Block},
		{"rm", map[string]any{"force": "T"}, policy.Block},
		{"rm", map[string]any{"dry_run": "0"}, policy.Ask},
		{"rm", map[string]any{"dry_run": "F"}, policy.Ask},
		{"deploy", map[string]any{"env": `"prod"`}, policy.Block},
		{"deploy", map[string]any{"env": "'PROD'"}, policy.Block},
		{"deploy", map[string]any{"env": "`prod`"}, policy.Block},
		{"deploy", map[string]any{"env": `" 'prod' "`}, policy.Block},
		{"fetch", map[string]any{"host": "evil.example."}, policy.Block},
		{"fetch", map[string]any{"host": "EVIL.example.."}, policy.Block},
		// Near misses.
		{"pay", map[string]any{"amount": "1000001"}, policy.Allow},
		{"pay", map[string]any{"amount": "1e6 coins"}, policy.Allow},
		{"pay", map[string]any{"amount": "0x1000000"}, policy.Allow},
		{"pay", map[string]any{"count": "77"}, policy.Allow},
		{"pay", map[string]any{"count": "7a"}, policy.Allow},
		{"pay", map[string]any{"count": json.Number("8")}, policy.Allow},
		{"rm", map[string]any{"force": "2"}, policy.Allow},
		{"rm", map[string]any{"force": "yes please"}, policy.Allow},
		{"rm", map[string]any{"dry_run": "1"}, policy.Allow},
		{"deploy", map[string]any{"env": `"prod`}, policy.Allow},
		{"deploy", map[string]any{"env": `'prod"`}, policy.Allow},
		{"deploy", map[string]any{"env": "production"}, policy.Allow},
		{"fetch", map[string]any{"host": "evil.example.org"}, policy.Allow},
		{"fetch", map[string]any{"host": ".evil.example"}, policy.Allow},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Args: c.args})
		if d.Outcome != c.want {
			t.Errorf("%s %v: %v (%s), want %v", c.tool, c.args, d.Outcome, d.Reason, c.want)
		}
	}
}

// TestACPAllowNotWidenedByReadings: the readings are for deny and ask
// rules only; an allow rule still matches the exact text, and a reading
// that a rate-limited allow rule names still counts in its bucket.
func TestACPAllowNotWidenedByReadings(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: deny
rules:
  - match: {tool: pay, args: {count: "7"}}
    action: allow
  - match: {tool: send, args: {to: "a@partner.example"}}
    action: allow
    rate_limit: "5/hour"
  - match: {tool: send}
    action: allow
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{"007", "0x7", "7.0", "'7'", json.Number("7.0")} {
		if d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "pay", Args: map[string]any{"count": v}}); d.Outcome != policy.Block {
			t.Errorf("allow count 7 took %v: %v", v, d.Outcome)
		}
	}
	if d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "pay", Args: map[string]any{"count": "7"}}); d.Outcome != policy.Allow {
		t.Errorf("allow count 7 refused \"7\": %v (%s)", d.Outcome, d.Reason)
	}
	for _, v := range []string{`"a@partner.example"`, "a@partner.example.", "'A@PARTNER.example'"} {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "send", Args: map[string]any{"to": v}})
		if d.Outcome != policy.Allow || d.Rule != "rules[1]" || !d.Rate.Valid() {
			t.Errorf("send to %q: %v by %s with rate %v, want the bucket of rules[1]", v, d.Outcome, d.Rule, d.Rate)
		}
	}
}

// TestACPDenyLongValueCompatibilityForms: a string over 16 KiB is folded
// in one cheap pass; it now maps NFKC compatibility forms (mathematical
// letters, ligatures, superscripts) and ß as normalize.Name does, so
// padding "𝐩𝐫𝐨𝐝" past 16 KiB no longer skips a deny rule that catches
// it unpadded; and a canonical decomposition, "CAFE\u0301", is composed
// as normalize.Name composes it (before, it passed "*café*" padded).
func TestACPDenyLongValueCompatibilityForms(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: allow
rules:
  - match: {tool: deploy, args: {env: "prod"}}
    action: deny
  - match: {tool: run, args: {command: "*strasse*"}}
    action: deny
  - match: {tool: run, args: {command: "*file*"}}
    action: deny
  - match: {tool: run, args: {command: "*café*"}}
    action: deny
`))
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat(" ", 17<<10)
	cases := []struct {
		tool, arg, value string
		want             policy.Outcome
	}{
		{"deploy", "env", "𝐩𝐫𝐨𝐝" + pad, policy.Block},
		{"deploy", "env", "ᵖʳᵒᵈ" + pad, policy.Block},
		{"run", "command", pad + "STRAẞE", policy.Block},
		{"run", "command", pad + "Straße", policy.Block},
		{"run", "command", pad + "ﬁle", policy.Block},
		{"run", "command", pad + "CAFÉ", policy.Block},
		{"run", "command", pad + "CAFE\u0301", policy.Block},
		{"run", "command", "cafe\u200b\u0301" + pad, policy.Block},
		{"run", "command", pad + "ca\uff26e\u0301", policy.Block},
		// Near misses.
		{"deploy", "env", "𝐩𝐫𝐨𝐝𝐮𝐜𝐭𝐢𝐨𝐧" + pad, policy.Allow},
		{"run", "command", pad + "strase", policy.Allow},
		{"run", "command", pad + "cafe", policy.Allow},
		{"run", "command", pad + "cafe\u0300", policy.Allow},
		{"run", "command", pad + "cafe\u0327", policy.Allow},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Args: map[string]any{c.arg: c.value}})
		if d.Outcome != c.want {
			t.Errorf("%s %q (padded): %v (%s), want %v", c.tool, strings.TrimSpace(c.value), d.Outcome, d.Reason, c.want)
		}
	}
}

// TestACPServerSpellings: a deny or ask rule's match.server matches the
// server's name folded as argument values are (case, NFKC, invisible
// runes, white space): the name a human is shown as "Prod-DB" skipped a
// deny rule for prod-*. An allow rule still matches the exact name.
func TestACPServerSpellings(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: allow
rules:
  - match: {tool: deploy, server: "prod-*"}
    action: deny
  - match: {tool: read, server: "PROD-*"}
    action: ask
  - match: {tool: list, server: "prod-*"}
    action: allow
  - match: {tool: list}
    action: deny
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, server string
		want         policy.Outcome
	}{
		{"deploy", "Prod-DB", policy.Block},
		{"deploy", "PROD-db", policy.Block},
		{"deploy", "prod\u200b-db", policy.Block},
		{"deploy", "\u202eprod-db", policy.Block},
		{"deploy", " prod-db ", policy.Block},
		{"deploy", "ｐｒｏｄ-db", policy.Block},
		{"read", "prod-db", policy.Ask},
		{"list", "prod-db", policy.Allow},
		// An allow rule takes only the exact spelling.
		{"list", "Prod-DB", policy.Block},
		{"list", "prod\u200b-db", policy.Block},
		// Near misses.
		{"deploy", "staging-db", policy.Allow},
		{"deploy", "preprod-db", policy.Allow},
		{"deploy", "рrod-db", policy.Allow}, // Cyrillic р: another name, not a spelling
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Server: c.server})
		if d.Outcome != c.want {
			t.Errorf("%s on %q: %v (%s), want %v", c.tool, c.server, d.Outcome, d.Reason, c.want)
		}
	}
}

// TestACPAllowRateLimitKeptForServerSpellings: a rate-limited allow rule
// that names the server only (no match.args) was not looked for in other
// spellings, so "Prod-East" went past the limit of the rule for prod-*
// to a later, unlimited allow. It counts in that rule's bucket now.
func TestACPAllowRateLimitKeptForServerSpellings(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: deny
rules:
  - match: {tool: deploy, server: "prod-*"}
    action: allow
    rate_limit: "2/hour"
  - match: {tool: deploy}
    action: allow
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"prod-east", "Prod-East", "prod\u200b-east"} {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "deploy", Server: server})
		if d.Outcome != policy.Allow || d.Rule != "rules[0]" || !d.Rate.Valid() {
			t.Errorf("server %q: %v by %s with rate %v, want the bucket of rules[0]", server, d.Outcome, d.Rule, d.Rate)
		}
	}
	if d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "deploy", Server: "staging-east"}); d.Rule != "rules[1]" || d.Rate.Valid() {
		t.Errorf("near miss, staging-east: %v by %s with rate %v", d.Outcome, d.Rule, d.Rate)
	}
}
