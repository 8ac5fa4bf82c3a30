package policy_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gatehouse-dev/gatehouse/policy"
)

func Example() {
	p, err := policy.Parse([]byte(`
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata:
  name: repo-reader
spec:
  allowed_tools: [read_file]
  protected_paths: [/etc/shadow]
  tool_rules:
    - tool: fetch
      rate_limit: 10/minute
      allow_args:
        url: "^https://github\\.com/"
    - tool: delete_file
      action: ask
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range []policy.Request{
		{Method: "tools/call", Tool: "ｒｅａｄ_ｆｉｌｅ", Args: map[string]any{"path": "README.md"}},
		{Method: "tools/call", Tool: "read_file", Args: map[string]any{"path": "/etc/shadow"}},
		{Method: "tools/call", Tool: "fetch", Args: map[string]any{"url": "https://evil.example/"}},
		{Method: "tools/call", Tool: "delete_file", Args: map[string]any{"path": "x"}},
		{Method: "tools/call", Tool: "drop_table", Args: map[string]any{"n": json.Number("1")}},
		{Method: "resources/read"},
	} {
		d := p.Evaluate(r)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-14s %6d %s", d.Outcome, d.Code, d.Reason)))
	}
	limit, _ := p.RateLimit("fetch")
	fmt.Println("fetch limit:", limit)
	// Output:
	// ALLOW               0
	// PROTECTED_PATH -32007 Argument "path" names a protected path
	// BLOCK          -32001 Argument "url" does not match its allow_args pattern
	// ASK                 0 Tool requires user approval
	// BLOCK          -32001 Tool not in allowed_tools list
	// BLOCK          -32006 Method not in allowed_methods list
	// fetch limit: 10/minute
}

func ExampleParseError() {
	_, err := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: x}\nspec:\n  alowed_tools: [a]\n"))
	fmt.Println(err)
	// Output:
	// policy: line 5, column 3: unknown field "alowed_tools" in spec (known: mode, allowed_tools, allowed_methods, denied_methods, tool_rules, protected_paths, strict_args_default, dlp)
}

func ExampleClassify() {
	for _, tool := range []string{"read_file", "ＳＥＮＤ_email", "transfer_funds", "frobnicate"} {
		c := policy.Classify(tool)
		fmt.Println(tool, c.Category, c.Risk)
	}
	// Output:
	// read_file read low
	// ＳＥＮＤ_email communication high
	// transfer_funds financial critical
	// frobnicate unknown high
}
