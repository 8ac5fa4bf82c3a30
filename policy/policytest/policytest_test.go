package policytest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// recorder captures what the helpers report instead of failing this test.
type recorder struct {
	testing.TB
	errors []string
	fatal  string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f with a recorder in its own goroutine, so Fatalf can stop it.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r
}

const src = `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: t}
spec:
  allowed_tools: [read_file]
  tool_rules:
    - tool: fetch
      rate_limit: 2/s
      strict_args: true
      allow_args: {url: "^https://"}
`

func mustParse(t *testing.T) *policy.Policy {
	p, err := policy.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckReportsTheRuleThatDecided(t *testing.T) {
	p := mustParse(t)
	r := run(t, func(tb testing.TB) {
		policytest.Check(tb, p, []policytest.Case{
			{Name: "ok", Tool: "read_file", Want: "ALLOW"},
			{Name: "wrong", Tool: "fetch", Args: map[string]any{"url": "http://x"}, Want: "ALLOW"},
			{Tool: "nope", Want: "BLOCK", Code: -32002},
			{Tool: "fetch", Args: map[string]any{"url": "http://x"}, Want: "BLOCK", FailedArg: "uri"},
			{Tool: "read_file", Want: "MAYBE"},
		})
	})
	if len(r.errors) != 4 {
		t.Fatalf("%d errors, want 4: %q", len(r.errors), r.errors)
	}
	for i, want := range []string{
		`case 2 "wrong": tools/call "fetch" {"url":"http://x"}: got BLOCK, want ALLOW`,
		`case 3: tools/call "nope" {}`,
		`failed_arg "url", want "uri"`,
		`want "MAYBE" is not one of`,
	} {
		if !strings.Contains(r.errors[i], want) {
			t.Errorf("error %d = %q, want it to contain %q", i, r.errors[i], want)
		}
	}
	for _, want := range []string{`failed_arg "url" against "^https://"`, "rule: tool fetch action allow rate_limit 2/second allow_args [url] strict_args"} {
		if !strings.Contains(r.errors[0], want) {
			t.Errorf("explanation %q lacks %q", r.errors[0], want)
		}
	}
	if !strings.Contains(r.errors[1], `code -32001, want -32002`) || !strings.Contains(r.errors[1], `no tool rule for "nope"`) {
		t.Errorf("error = %q", r.errors[1])
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	list := write("list.yaml", `
- call: {tool: read_file, args: {path: /tmp/a}}
  want: ALLOW
- name: numbers arrive as json.Number
  call: {tool: fetch, args: {url: 443}}
  want: BLOCK
  failed_arg: url
`)
	self := write("self.yaml", "policy: |\n"+indent(src)+"cases:\n  - call: {tool: fetch, args: {url: 'https://x', extra: 1}}\n    want: ALLOW\n")
	p := mustParse(t)
	if r := run(t, func(tb testing.TB) { policytest.CheckFile(tb, p, list) }); len(r.errors) != 0 || r.fatal != "" {
		t.Errorf("CheckFile: %q %q", r.errors, r.fatal)
	}
	r := run(t, func(tb testing.TB) { policytest.RunFile(tb, self, nil) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], `failed_arg "extra"`) {
		t.Errorf("RunFile should report the strict_args failure: %q %q", r.errors, r.fatal)
	}
	for name, c := range map[string]struct {
		body, fatal string
		run         func(tb testing.TB, path string)
	}{
		"policy in CheckFile":  {"policy: x\ncases: [{call: {tool: a}, want: ALLOW}]\n", "use RunFile", func(tb testing.TB, path string) { policytest.CheckFile(tb, p, path) }},
		"no policy in RunFile": {"- {call: {tool: a}, want: ALLOW}\n", "use CheckFile", func(tb testing.TB, path string) { policytest.RunFile(tb, path, nil) }},
		"no cases":             {"[]\n", "has no cases", func(tb testing.TB, path string) { policytest.CheckFile(tb, p, path) }},
		"unknown key":          {"- {call: {tool: a}, wnat: ALLOW}\n", "field wnat not found", func(tb testing.TB, path string) { policytest.CheckFile(tb, p, path) }},
		"bad policy":           {"policy: 'kind: x'\ncases: [{call: {tool: a}, want: ALLOW}]\n", "apiVersion is required", func(tb testing.TB, path string) { policytest.RunFile(tb, path, nil) }},
		"missing file":         {"", "no such file", func(tb testing.TB, path string) { policytest.CheckFile(tb, p, path+".missing") }},
	} {
		path := write(strings.ReplaceAll(name, " ", "_")+".yaml", c.body)
		r := run(t, func(tb testing.TB) { c.run(tb, path) })
		if !strings.Contains(r.fatal, c.fatal) {
			t.Errorf("%s: fatal %q, want %q", name, r.fatal, c.fatal)
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestCaseLines: a failing case from a YAML file names its line, in both
// file shapes.
func TestCaseLines(t *testing.T) {
	list := "- call: {tool: read_file}\n  want: ALLOW\n\n- name: wrong\n  call: {tool: nope}\n  want: ALLOW\n"
	_, cases, err := policytest.ReadCases([]byte(list))
	if err != nil || len(cases) != 2 || cases[0].Line != 1 || cases[1].Line != 4 {
		t.Fatalf("list: %v %+v", err, cases)
	}
	doc := "policy: |\n" + indent(src) + "cases:\n  - call: {tool: read_file}\n    want: ALLOW\n  - call: {tool: nope}\n    want: ALLOW\n"
	_, cases, err = policytest.ReadCases([]byte(doc))
	want := 3 + strings.Count(src, "\n") // "policy: |", the policy, "cases:"
	if err != nil || len(cases) != 2 || cases[0].Line != want || cases[1].Line != want+2 {
		t.Fatalf("doc: %v %+v, want lines %d and %d", err, cases, want, want+2)
	}
	r := run(t, func(tb testing.TB) { policytest.Check(tb, mustParse(t), cases) })
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], fmt.Sprintf("case 2 (line %d):", want+2)) {
		t.Fatalf("%q", r.errors)
	}
	if msg := policytest.Mismatch(mustParse(t), cases[0]); msg != "" {
		t.Fatalf("passing case: %s", msg)
	}
}
