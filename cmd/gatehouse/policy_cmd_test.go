package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

const lintPolicy = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  mode: monitor
  allowed_tools: [read_file]
  tool_rules:
    - tool: delete_file
      action: ask
`

func TestPolicyLint(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "p.yaml", lintPolicy)
	gh(t, dir, "", "policy", "lint", p).want(t, 0,
		p+":5: warning: spec.mode is monitor", "(monitor-mode)",
		p+":8: warning: tool rule \"delete_file\" asks a human", "(ask-without-channel)", "hint: name the ask channels", "ok, 2 warning(s)")
	gh(t, dir, "", "policy", "lint", "-strict", p).want(t, 1, "(monitor-mode)")
	r := gh(t, dir, "", "policy", "lint", "-channel", "terminal", p)
	r.want(t, 0, "ok, 1 warning(s)")
	if strings.Contains(r.out, "ask-without-channel") {
		t.Errorf("-channel did not silence the ask warning:\n%s", r)
	}
	quiet := write(t, dir, "q.yaml", strings.Replace(lintPolicy, "  mode: monitor\n", "", 1))
	gh(t, dir, "", "policy", "lint", "-strict", "-channel", "webhook", quiet).want(t, 0, "ok, 0 warning(s)")
}

func TestPolicyLintMalformed(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, body, want string }{
		{"bad mode", strings.Replace(lintPolicy, "mode: monitor", "mode: sometimes", 1), ":5:9: error: unknown spec.mode \"sometimes\""},
		{"unknown field", lintPolicy + "  bogus: 1\n", ":10"},
		{"bad regex", lintPolicy + "    - tool: fetch\n      allow_args: {url: \"(\"}\n", ":11"},
		{"wrong kind", strings.Replace(lintPolicy, "kind: AgentPolicy", "kind: Other", 1), ":2:7: error:"},
		{"tab indent", strings.Replace(lintPolicy, "  mode: monitor", "\tmode: monitor", 1), ":5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, strings.ReplaceAll(c.name, " ", "-")+".yaml", c.body)
			gh(t, dir, "", "policy", "lint", p).want(t, 1, p+c.want)
		})
	}
	gh(t, dir, "", "policy", "lint", filepath.Join(dir, "missing.yaml")).want(t, 2, "no such file")
}

const cases = `- call: {tool: read_file, args: {path: /tmp/a}}
  want: ALLOW
- name: asks
  call: {tool: delete_file}
  want: ASK

- name: wrong on purpose
  call: {tool: write_file}
  want: ALLOW
`

func TestPolicyTest(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "p.yaml", strings.Replace(lintPolicy, "  mode: monitor\n", "", 1))
	pass := write(t, dir, "pass.yaml", cases[:strings.Index(cases, "\n- name: wrong")+1])
	gh(t, dir, "", "policy", "test", p, pass).want(t, 0, "ok 2 case(s)")
	gh(t, dir, "", "policy", "test", "-v", p, pass).want(t, 0, pass+":1: ok case 1", pass+":3: ok case 2 \"asks\"")
	fail := write(t, dir, "fail.yaml", cases)
	gh(t, dir, "", "policy", "test", p, fail).want(t, 1,
		fail+`:7: FAIL case 3 "wrong on purpose": tools/call "write_file" {}: got BLOCK, want ALLOW`, "FAIL 1 of 3 case(s)")

	bad := write(t, dir, "bad.yaml", "- call: {tool: a}\n  want: ALLOW\n  wnat: BLOCK\n")
	gh(t, dir, "", "policy", "test", p, bad).want(t, 1, "line 3", "wnat")
	gh(t, dir, "", "policy", "test", p, filepath.Join(dir, "nope.yaml")).want(t, 2, "no such file")
	gh(t, dir, "", "policy", "test", filepath.Join(dir, "nope.yaml"), pass).want(t, 2, "no such file")
	gh(t, dir, "", "policy", "test", pass).want(t, 2, "has no policy")
	badPol := write(t, dir, "badpol.yaml", strings.Replace(lintPolicy, "mode: monitor", "mode: sometimes", 1))
	gh(t, dir, "", "policy", "test", badPol, pass).want(t, 1, badPol+":5:9: error:")
}

// TestPolicyTestRunsTheRepositoryCorpora runs case files the repository
// already has (policy inline) through the command.
func TestPolicyTestRunsTheRepositoryCorpora(t *testing.T) {
	for _, f := range []string{"bypass_names.yaml", "acp_args.yaml"} {
		path, _ := filepath.Abs(filepath.Join("..", "..", "policy", "testdata", f))
		gh(t, t.TempDir(), "", "policy", "test", path).want(t, 0, "ok ")
	}
}
