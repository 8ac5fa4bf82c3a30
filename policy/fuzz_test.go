package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/gatehouse-dev/gatehouse/internal/aipvectors"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// FuzzParse: Parse never panics; what it accepts evaluates without panic
// and never allows a tool the policy cannot know.
func FuzzParse(f *testing.F) {
	cases, err := aipvectors.Cases()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		if c.Policy != nil {
			f.Add([]byte(*c.Policy))
		}
	}
	f.Add([]byte(header + "spec:\n  tool_rules:\n    - {tool: a, rate_limit: 1/s, allow_args: {x: \"(a+)+$\"}}\n"))
	f.Add([]byte(header + "spec: &a {}\nx: *a\n"))
	f.Add([]byte(header + "spec:\n\tallowed_tools: [a]\n"))                 // a tab in indentation
	f.Add([]byte(header + "spec:\n  allowed_tools: [a]\n mode: enforce\n")) // a dedented key
	f.Add([]byte(header + "spec:\n  allowed_tools: [\"\u00e9\t\", b\n"))    // an unclosed flow after a multi-byte rune
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := policy.ParseWith(data, testOpts)
		if err != nil {
			return
		}
		d := p.Evaluate(policy.Request{Method: "tools/call", Tool: "\u200bzz_unknown_tool_zz", Args: map[string]any{"a": json.Number("1"), "b": "~/.ssh"}})
		if d.Outcome == policy.Allow && !d.Violation && p.MayAllow("zz_unknown_tool_zz") == false {
			t.Fatalf("an unknown tool was allowed: %+v", d)
		}
		p.RateLimit("a")
	})
}

// FuzzEvaluate: Evaluate never panics on any name or argument text.
func FuzzEvaluate(f *testing.F) {
	f.Add("tools/call", "read_file", `{"path":"~/.ssh/id_rsa"}`)
	f.Add("ｔｏｏｌｓ/ｃａｌｌ", "ｄｅｌｅｔｅ", `{"a":[[[{"b":"%2e%2e/.env"}]]]}`)
	p, err := policy.ParseWith([]byte(header+`spec:
  allowed_methods: ["*"]
  allowed_tools: [read_file]
  protected_paths: [~/.ssh, .env, /etc]
  tool_rules:
    - {tool: fetch, strict_args: true, allow_args: {url: "^https://"}}
    - {tool: ask_me, action: ask}
`), testOpts)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, tool, args string) {
		var a map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		d := p.Evaluate(policy.Request{Method: method, Tool: tool, Args: a})
		if d.Outcome == policy.Allow && d.Code != 0 {
			t.Fatalf("allow with code %d", d.Code)
		}
		if d.Outcome != policy.Allow && d.Outcome != policy.Ask && d.Code == 0 {
			t.Fatalf("deny without code: %+v", d)
		}
	})
}
