package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestRedteamLintRejectsWhatTheGuardRejects: `policy lint` said "ok" for
// policies whose dlp patterns gatehouse.New refuses (a pattern named as a
// built-in rule, one that matches the empty string, a name with "]" or
// longer than a rule name may be): the user who trusts lint learned at
// deploy time that the server does not start. Now lint fails exactly
// where New fails, naming the pattern.
func TestRedteamLintRejectsWhatTheGuardRejects(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		pattern string
		bad     bool
	}{
		{"{name: aws-access-key-id, regex: 'AKIA[A-Z0-9]{16}'}", true},
		{"{name: empty, regex: 'x*'}", true},
		{"{name: 'a]b', regex: 'zz[0-9]+'}", true},
		{fmt.Sprintf("{name: %s, regex: 'zz[0-9]+'}", strings.Repeat("n", 300)), true},
		// Near misses: the guard takes these.
		{"{name: ticket, regex: 'TICKET-[0-9]{6}'}", false},
		{"{name: 'AWS Key', regex: '(AKIA|ASIA)[A-Z0-9]{16}'}", false},
		{"{name: x-plus, regex: 'x+'}", false},
	}
	for i, c := range cases {
		for _, off := range []string{"", "    enabled: false\n"} {
			src := "apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec:\n  allowed_tools: [a]\n  dlp:\n" + off + "    patterns:\n      - " + c.pattern + "\n"
			file := write(t, dir, fmt.Sprintf("p%d.yaml", i), src)
			p, err := policy.Load(file)
			if err != nil {
				t.Fatalf("%s: %v", c.pattern, err)
			}
			_, newErr := gatehouse.New(p, nil)
			if (newErr != nil) != (c.bad && off == "") {
				t.Fatalf("%s (%q): New says %v", c.pattern, off, newErr)
			}
			r := gh(t, dir, "", "policy", "lint", file)
			if newErr != nil {
				r.want(t, 1, file+": error: ")
			} else {
				r.want(t, 0, "ok, 0 warning(s)")
			}
		}
	}
}
