package policy_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

const acpMail = `version: "1"
default_action: allow
rules:
  - match: {tool: send_email, args: {to: "*@evil.example"}}
    action: deny
  - match: {tool: send_email, args: {to: "*@partner.example"}}
    action: allow
    rate_limit: "2/hour"
  - match: {tool: invite, args: {to: "ceo@corp.example"}}
    action: ask
`

// TestACPDenyMatchesMailAddresses: a mail tool reads its recipient as
// net/mail does (and as an SMTP header does): "Eve <eve@evil.example>",
// "eve@evil.example (Eve)" and the list "eve@evil.example, bob@ok.example"
// all send to eve@evil.example, and each skipped the deny rule for
// *@evil.example, whose glob the text does not end with. A deny or ask
// rule now also matches each address of a value that parses as an
// address list; a rate-limited allow rule counts them in its bucket.
func TestACPDenyMatchesMailAddresses(t *testing.T) {
	p, err := policy.Parse([]byte(acpMail))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool, to string
		want     policy.Outcome
		rule     string
	}{
		{"send_email", "Eve <eve@evil.example>", policy.Block, "rules[0]"},
		{"send_email", "eve@evil.example (Eve)", policy.Block, "rules[0]"},
		{"send_email", "eve@evil.example, bob@ok.example", policy.Block, "rules[0]"},
		{"send_email", "<EVE@Evil.Example>", policy.Block, "rules[0]"},
		{"send_email", `"Bob, at partner" <eve@evil.example>`, policy.Block, "rules[0]"},
		{"invite", "The CEO <ceo@corp.example>", policy.Ask, "rules[2]"},
		{"send_email", "Bob <bob@partner.example>", policy.Allow, "rules[1]"}, // in the bucket of rules[1]
		{"send_email", "eve@evil.example, " + strings.Repeat("x", 20<<10), policy.Block, "rules[0]"},
		{"send_email", strings.Repeat("a@ok.example, ", 300), policy.Block, "rules[0]"}, // too many to read: fail closed
		// Near misses.
		{"send_email", "eve@evil.example.org", policy.Allow, "default_action"},
		{"send_email", "Eve <eve@notevil.example.org>", policy.Allow, "default_action"},
		{"send_email", "bob@ok.example", policy.Allow, "default_action"},
		{"send_email", strings.Repeat("a@ok.example, ", 200), policy.Allow, "default_action"},
		{"invite", "The CEO <cfo@corp.example>", policy.Allow, "default_action"},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.tool, Args: map[string]any{"to": c.to}})
		if d.Outcome != c.want || d.Rule != c.rule {
			t.Errorf("%s to %q: %v by %s (%s), want %v by %s", c.tool, c.to, d.Outcome, d.Rule, d.Reason, c.want, c.rule)
		}
	}
}
