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
