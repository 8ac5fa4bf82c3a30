package policy_test

import (
	"slices"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

func TestLint(t *testing.T) {
	aip := `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  mode: monitor
  allowed_methods: ["*"]
  tool_rules:
    - tool: read_file
    - tool: delete_file
      action: ask
`
	acp := `version: "1"
default_action: allow
rules:
  - match: {tool: "send_*"}
    action: ask
  - match: {tool: rm}
    action: deny
`
	quiet := `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [read_file]
`
	type w struct {
		line int
		code string
	}
	cases := []struct {
		name, src string
		opts      *policy.LintOptions
		want      []w
	}{
		{"aip", aip, nil, []w{{5, policy.WarnMonitorMode}, {6, policy.WarnAllMethods}, {9, policy.WarnAskWithoutChannel}}},
		{"aip with a channel", aip, &policy.LintOptions{Channels: []string{"terminal"}}, []w{{5, policy.WarnMonitorMode}, {6, policy.WarnAllMethods}}},
		{"acp", acp, nil, []w{{2, policy.WarnDefaultAllow}, {5, policy.WarnAskWithoutChannel}}},
		{"near miss: nothing to say", quiet, nil, nil},
	}
	for _, c := range cases {
		p, err := policy.Parse([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []w
		for _, x := range p.Lint(c.opts) {
			got = append(got, w{x.Line, x.Code})
			if x.Msg == "" {
				t.Errorf("%s: empty message", c.name)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
