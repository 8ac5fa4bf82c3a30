package policy_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestACPDenyLongValueSpaceForms (red team rtv): past 16 KiB a value is
// folded in one cheap pass, which removed the invisible runes before it
// mapped the compatibility forms; normalize.Name maps first (NFKC makes
// U+00A0, U+2002 and U+3000 a space) and removes after. So "rm\u00a0-rf /"
// padded past 16 KiB was "rm-rf /" and passed the deny rule "*rm -rf*"
// that caught it short. And U+037A (ͺ, " \u0345" in NFKC) before a mark
// had its mark reordered after the fold, not before.
func TestACPDenyLongValueSpaceForms(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: allow
rules:
  - match: {tool: run, args: {command: "*rm -rf*"}}
    action: deny
  - match: {tool: run, args: {command: "*drop table*"}}
    action: deny
  - match: {tool: run, args: {command: "*a \u0301ι*"}}
    action: deny
  - match: {tool: run, args: {command: "*ωι*"}}
    action: deny
`))
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 17<<10)
	cases := []struct {
		value string
		want  policy.Outcome
	}{
		{"rm\u00a0-rf /", policy.Block},
		{"rm\u2002-rf /", policy.Block},
		{"rm\u3000-rf /", policy.Block},
		{"rm\u202f-rf /", policy.Block},
		{"rm\u205f-rf /", policy.Block},
		{"DROP\u2009TABLE users", policy.Block},
		{"a\u037a\u0301", policy.Block},
		{"\U0001d6c0\u2dfc\u0345", policy.Block}, // 𝛀 is Ω, which takes the mark before it is ι
		// Near misses: the invisible runes that are no space are still
		// removed, and a space kept is still one word break.
		{"rm\u200b-rf /", policy.Allow},
		{"rm\u00ad-rf /", policy.Allow},
		{"drop\u2009\u2009table", policy.Allow},
		{"a\u0345\u0301", policy.Allow},
	}
	for _, c := range cases {
		for _, v := range []string{c.value, pad + " " + c.value, c.value + " " + pad} {
			d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"command": v}})
			if d.Outcome != c.want {
				t.Errorf("%+q (%d bytes): %v (%s), want %v", c.value, len(v), d.Outcome, d.Reason, c.want)
			}
		}
	}
}

// Past 64 KiB of argument values folded with normalize.Name in one call,
// the rest are folded by the cheap pass whatever their length (an array
// of strings just under 16 KiB cost Name's price for a whole mebibyte);
// a short value after the budget is still caught in every spelling a
// deny rule catches alone (red team rtv).
func TestACPDenyShortValueAfterTheNameBudget(t *testing.T) {
	p, err := policy.Parse([]byte(`version: "1"
default_action: allow
rules:
  - match: {tool: run, args: {pad: "*zzz*"}}
    action: deny
  - match: {tool: run, args: {command: "*rm -rf*"}}
    action: deny
  - match: {tool: run, args: {command: "*café*"}}
    action: deny
`))
	if err != nil {
		t.Fatal(err)
	}
	var pad []any
	for range 5 {
		pad = append(pad, strings.Repeat("\u00e9\u0301", 4<<10)) // 16 KiB each
	}
	for _, c := range []struct {
		value string
		want  policy.Outcome
	}{
		{"rm\u00a0-rf /", policy.Block},
		{"RM -RF /", policy.Block},
		{"CAFE\u0301", policy.Block},
		{"ca\uff26\u00c9", policy.Block},
		{"rm\u200b -rf", policy.Block},
		{"cafe", policy.Allow},
		{"rm -f", policy.Allow},
	} {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"pad": pad, "command": c.value}})
		if d.Outcome != c.want {
			t.Errorf("%+q after 80 KiB of other values: %v (%s), want %v", c.value, d.Outcome, d.Reason, c.want)
		}
	}
}
