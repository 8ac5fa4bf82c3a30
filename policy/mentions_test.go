package policy_test

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestMentions: an AgentPolicy mentions the tools it lists or has a rule
// for (any spelling that normalizes to them); ACP rules mention the tools
// a rule's tool glob and category match, whatever the rule's other
// conditions.
func TestMentions(t *testing.T) {
	aip, err := policy.Parse([]byte(`apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [read_file]
  tool_rules:
    - {tool: rm, action: block}
    - {tool: deploy, action: ask}
`))
	if err != nil {
		t.Fatal(err)
	}
	acp, err := policy.Parse([]byte(`version: "1"
default_action: deny
rules:
  - match: {tool: "read_*"}
    action: allow
  - match: {tool: "deploy_*", server: "prod-*"}
    action: deny
  - match: {category: financial}
    action: ask
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    *policy.Policy
		tool string
		want bool
	}{
		{aip, "read_file", true}, {aip, "READ_FILE\u200b", true}, {aip, "rm", true}, {aip, "deploy", true},
		{aip, "write_file", false}, {aip, "read_file2", false}, {aip, "", false},
		{acp, "read_anything", true}, {acp, "deploy_web", true}, {acp, "transfer_funds", true},
		{acp, "write_file", false}, {acp, "deploy", false},
		{nil, "read_file", false},
	} {
		if got := tc.p.Mentions(tc.tool); got != tc.want {
			t.Errorf("Mentions(%q) = %v, want %v", tc.tool, got, tc.want)
		}
	}
}
