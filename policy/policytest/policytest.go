// Package policytest lets tool authors assert policy decisions in their own
// go test, from Go tables or YAML case files, with failure messages that
// show the rule that decided.
//
// A YAML case file is either a list of cases, checked against a policy the
// test supplies ([CheckFile]), or a mapping with the policy inline and the
// cases ([RunFile]):
//
//	policy: |
//	  apiVersion: aip.io/v1alpha1
//	  kind: AgentPolicy
//	  metadata: {name: example}
//	  spec:
//	    allowed_tools: [read_file]
//	cases:
//	  - call: {tool: read_file, args: {path: /tmp/a}}
//	    want: ALLOW
//	  - name: unlisted tool
//	    call: {tool: delete_file}
//	    want: BLOCK
//	    code: -32001
//
// call.method defaults to tools/call; for other methods the case also runs
// [policy.Policy.ProtectedArgs], as the guard does. call.paths is the
// tool's [policy.PathArgs] (base, args, join). want is ALLOW,
// ALLOW_MONITOR, BLOCK, ASK or PROTECTED_PATH; code, failed_arg and reason
// (a substring of the decision's reason) are optional extra checks.
// Arguments are passed through JSON, so numbers arrive as json.Number, as
// they do from a real client.
//
// The helpers call t.Errorf for each failing case and t.Fatalf for a file
// that cannot be read; they are safe to call from parallel tests.
package policytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Case is one expected decision.
type Case struct {
	Name   string         // optional label for failure messages
	Method string         // default "tools/call"
	Tool   string         // tool name as a client sends it
	Args   map[string]any // arguments; use json.Number for numbers to match the wire
	// Want is "ALLOW", "ALLOW_MONITOR", "BLOCK", "ASK" or "PROTECTED_PATH".
	Want      string
	Code      int    // optional: the expected AIP §5 code (0: not checked)
	FailedArg string // optional: the expected failing argument
	Reason    string // optional: text the decision's reason must contain
	// Paths is the tool's path declaration, as the guard passes it.
	Paths *policy.PathArgs
	// Line is where the case starts in its YAML file ([ReadCases]); 0 for
	// cases written in Go.
	Line int
}

// Check evaluates every case against p and reports each mismatch.
func Check(t testing.TB, p *policy.Policy, cases []Case) {
	t.Helper()
	for i, c := range cases {
		if msg := Mismatch(p, c); msg != "" {
			t.Errorf("case %s: %s", label(i, c), msg)
		}
	}
}

func label(i int, c Case) string {
	s := fmt.Sprint(i + 1)
	if c.Name != "" {
		s = fmt.Sprintf("%d %q", i+1, c.Name)
	}
	if c.Line > 0 {
		s += fmt.Sprintf(" (line %d)", c.Line)
	}
	return s
}

// Mismatch evaluates c against p and returns "" when the decision is the
// one c wants, else a description of the mismatch and of the rule that
// decided ([Explain]). It is [Check] without a testing.TB, for tools such
// as `gatehouse policy test`.
func Mismatch(p *policy.Policy, c Case) string {
	switch c.Want {
	case "ALLOW", "ALLOW_MONITOR", "BLOCK", "ASK", "PROTECTED_PATH":
	default:
		return fmt.Sprintf("want %q is not one of ALLOW, ALLOW_MONITOR, BLOCK, ASK, PROTECTED_PATH", c.Want)
	}
	req := policy.Request{Method: c.Method, Tool: c.Tool, Args: c.Args, Paths: c.Paths}
	if req.Method == "" {
		req.Method = policy.MethodToolsCall
	}
	d := p.Evaluate(req)
	if d.Outcome == policy.Allow && req.Method != policy.MethodToolsCall {
		// What the guard does for the other methods that can carry a
		// path (resources/read, prompts/get, completion/complete).
		if pd, hit := p.ProtectedArgs(req.Method, req.Args); hit {
			d = pd
		}
	}
	got := d.Outcome.String()
	if d.Monitored() {
		got = "ALLOW_MONITOR"
	}
	var problems []string
	if got != c.Want {
		problems = append(problems, fmt.Sprintf("got %s, want %s", got, c.Want))
	}
	if c.Code != 0 && d.Code != c.Code {
		problems = append(problems, fmt.Sprintf("code %d, want %d", d.Code, c.Code))
	}
	if c.FailedArg != "" && d.FailedArg != c.FailedArg {
		problems = append(problems, fmt.Sprintf("failed_arg %q, want %q", d.FailedArg, c.FailedArg))
	}
	if c.Reason != "" && !strings.Contains(d.Reason, c.Reason) {
		problems = append(problems, fmt.Sprintf("reason %q does not contain %q", d.Reason, c.Reason))
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s: %s\n\t%s", req.Method, callText(req), strings.Join(problems, "; "), Explain(p, d))
}

func callText(r policy.Request) string {
	if r.Args == nil {
		r.Args = map[string]any{}
	}
	args, err := json.Marshal(r.Args)
	if err != nil {
		args = []byte(fmt.Sprint(r.Args))
	}
	if r.Method != policy.MethodToolsCall {
		return ""
	}
	return fmt.Sprintf("%q %s", r.Tool, args)
}

// Explain describes a decision and the rule that made it, for test output:
// outcome, code and message, reason, the failing argument and its pattern,
// and the tool rule of the (normalized) tool if it has one.
func Explain(p *policy.Policy, d policy.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "decision %s", d.Outcome)
	if d.Monitored() {
		b.WriteString(" (monitor mode: would block)")
	}
	if d.Code != 0 {
		fmt.Fprintf(&b, " %d %s", d.Code, d.Message)
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, ": %s", d.Reason)
	}
	if d.FailedArg != "" {
		fmt.Fprintf(&b, "; failed_arg %q", d.FailedArg)
	}
	if d.FailedRule != "" {
		fmt.Fprintf(&b, " against %q", d.FailedRule)
	}
	if d.Tool != "" {
		if r, ok := p.Rule(d.Tool); ok {
			fmt.Fprintf(&b, "; rule: tool %s action %s", r.Tool, r.Action)
			if r.RateLimit != "" {
				fmt.Fprintf(&b, " rate_limit %s", r.RateLimit)
			}
			if len(r.Args) > 0 {
				fmt.Fprintf(&b, " allow_args %v", r.Args)
			}
			if r.StrictArgs {
				b.WriteString(" strict_args")
			}
		} else if d.Tool != "" {
			fmt.Fprintf(&b, "; no tool rule for %q", d.Tool)
		}
	}
	return b.String()
}

// fileCase is a case as written in YAML.
type fileCase struct {
	Name string `yaml:"name"`
	Call struct {
		Method string         `yaml:"method"`
		Tool   string         `yaml:"tool"`
		Args   map[string]any `yaml:"args"`
		Paths  *struct {
			Base string     `yaml:"base"`
			Args []string   `yaml:"args"`
			Join [][]string `yaml:"join"`
		} `yaml:"paths"`
	} `yaml:"call"`
	Want      string `yaml:"want"`
	Code      int    `yaml:"code"`
	FailedArg string `yaml:"failed_arg"`
	Reason    string `yaml:"reason"`
}

type fileDoc struct {
	Policy string     `yaml:"policy"`
	Cases  []fileCase `yaml:"cases"`
}

// ReadCases decodes a YAML case file: a list of cases, or a mapping with
// policy (the AgentPolicy YAML as a string, "" if absent) and cases.
func ReadCases(data []byte) (policySrc string, cases []Case, err error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return "", nil, fmt.Errorf("policytest: %w", err)
	}
	var doc fileDoc
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.SequenceNode {
		err = strictDecode(data, &doc.Cases)
	} else {
		err = strictDecode(data, &doc)
	}
	if err != nil {
		return "", nil, err
	}
	lines := caseLines(&root)
	for i, fc := range doc.Cases {
		args, err := wireArgs(fc.Call.Args)
		if err != nil {
			return "", nil, fmt.Errorf("policytest: case %d: %w", i+1, err)
		}
		c := Case{
			Name: fc.Name, Method: fc.Call.Method, Tool: fc.Call.Tool, Args: args,
			Want: fc.Want, Code: fc.Code, FailedArg: fc.FailedArg, Reason: fc.Reason,
		}
		if d := fc.Call.Paths; d != nil {
			c.Paths = &policy.PathArgs{Base: d.Base, Args: d.Args, Join: d.Join}
		}
		if i < len(lines) {
			c.Line = lines[i]
		}
		cases = append(cases, c)
	}
	return doc.Policy, cases, nil
}

// caseLines returns the line of each case: the items of the top-level
// sequence, or of the sequence under "cases".
func caseLines(root *yaml.Node) []int {
	if len(root.Content) != 1 {
		return nil
	}
	seq := root.Content[0]
	if seq.Kind == yaml.MappingNode {
		seq = nil
		for i := 0; i+1 < len(root.Content[0].Content); i += 2 {
			if root.Content[0].Content[i].Value == "cases" {
				seq = root.Content[0].Content[i+1]
			}
		}
	}
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	lines := make([]int, len(seq.Content))
	for i, it := range seq.Content {
		lines[i] = it.Line
	}
	return lines
}

func strictDecode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("policytest: %w", err)
	}
	return nil
}

// wireArgs round-trips YAML values through JSON, so they look as a client's
// arguments look to the middleware (numbers as json.Number).
func wireArgs(a map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	out := map[string]any{}
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// CheckFile checks the cases of a YAML case file against p. A policy in the
// file is an error: use RunFile for self-contained files.
func CheckFile(t testing.TB, p *policy.Policy, path string) {
	t.Helper()
	src, cases := readFile(t, path)
	if src != "" {
		t.Fatalf("policytest: %s has its own policy; use RunFile", path)
	}
	Check(t, p, cases)
}

// RunFile parses the policy inside a YAML case file (with opts; nil for
// defaults) and checks the file's cases against it.
func RunFile(t testing.TB, path string, opts *policy.Options) {
	t.Helper()
	src, cases := readFile(t, path)
	if src == "" {
		t.Fatalf("policytest: %s has no policy; use CheckFile", path)
	}
	p, err := policy.ParseWith([]byte(src), opts)
	if err != nil {
		t.Fatalf("policytest: %s: %v", path, err)
	}
	Check(t, p, cases)
}

func readFile(t testing.TB, path string) (string, []Case) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("policytest: %v", err)
	}
	src, cases, err := ReadCases(data)
	if err != nil {
		t.Fatalf("policytest: %s: %v", path, err)
	}
	if len(cases) == 0 {
		t.Fatalf("policytest: %s has no cases", path)
	}
	return src, cases
}
