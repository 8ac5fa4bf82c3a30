package policytest_test

import (
	"encoding/json"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// In a tool author's test the table goes to policytest.Check(t, p, cases),
// which fails the test with policytest.Explain's text for each mismatch.
// Here Explain is called directly to show that text.
func Example() {
	p, err := policy.Parse([]byte(`
apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: payments}
spec:
  tool_rules:
    - tool: refund
      action: ask
      allow_args: {amount: "^[0-9]{1,3}(\\.[0-9]{2})?$"}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	cases := []policytest.Case{
		{Name: "small refund asks", Tool: "refund", Args: map[string]any{"amount": json.Number("25.00")}, Want: "ASK"},
		{Name: "large refund blocked", Tool: "refund", Args: map[string]any{"amount": json.Number("2500")}, Want: "BLOCK", FailedArg: "amount"},
		{Name: "other tools blocked", Tool: "charge", Want: "BLOCK", Code: policy.CodeForbidden},
	}
	for _, c := range cases {
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: c.Tool, Args: c.Args})
		fmt.Printf("%s: %s\n", c.Name, policytest.Explain(p, d))
	}
	// Output:
	// small refund asks: decision ASK: Tool requires user approval; rule: tool refund action ask allow_args [amount]
	// large refund blocked: decision BLOCK -32001 Forbidden: Argument "amount" does not match its allow_args pattern; failed_arg "amount" against "^[0-9]{1,3}(\\.[0-9]{2})?$"; rule: tool refund action ask allow_args [amount]
	// other tools blocked: decision BLOCK -32001 Forbidden: Tool not in allowed_tools list; no tool rule for "charge"
}
