package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/policy/policytest"
)

// TestRedTeamRUB_ShellCorpus walks testdata/bypass_shell_rub.yaml: loops
// whose later rounds run after the cd at their end, cdable_vars and
// autocd, path variables assigned through namerefs, run-time names and
// quoted declare words, /dev/stdin spelled otherwise, more commands that
// run a shell, cd into a pattern, BASH_ENV/HISTFILE built at run time,
// mv/ln of a protected path's directory, diff -r, pax and zip -R walks,
// ssh's remote command, a relative working-directory argument; and the
// near misses.
func TestRedTeamRUB_ShellCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_shell_rub.yaml", corpusOpts)
}

// TestRedTeamRUB_ExtglobCorpus walks testdata/bypass_shell_rub_rel.yaml:
// extended globs that match a name's leading dot.
func TestRedTeamRUB_ExtglobCorpus(t *testing.T) {
	policytest.RunFile(t, "testdata/bypass_shell_rub_rel.yaml", corpusOpts)
}

// TestRedTeamRUB_NestedBodiesLinear: each function body was walked again
// at the end once for every body around it, and those again: 22 nested
// function definitions (about 300 bytes) cost 7 s of CPU, and each more
// doubled it. Now each kept body is walked once a round; a nest of 2000
// is decided, and a cd at the end of the innermost still counts for the
// commands before it.
func TestRedTeamRUB_NestedBodiesLinear(t *testing.T) {
	p, err := policy.ParseWith([]byte(`apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: nest}
spec:
  allowed_tools: [run]
  protected_paths: [/etc/shadow]
`), corpusOpts)
	if err != nil {
		t.Fatal(err)
	}
	nest := func(n int, inner string) string {
		var b strings.Builder
		b.WriteString("cd /tmp; ")
		for i := range n {
			b.WriteString("f" + strings.Repeat("x", i%7) + "() { while true; do ")
		}
		b.WriteString(inner)
		for range n {
			b.WriteString("; done; }")
		}
		return b.String()
	}
	for _, c := range []struct {
		n     int
		inner string
		want  policy.Outcome
	}{
		{30, "true", policy.Allow},
		{2000, "true", policy.Allow},
		{30, "cat shadow; cd /etc", policy.ProtectedPath},
		{2000, "cat shadow; cd /etc", policy.ProtectedPath},
	} {
		done := make(chan policy.Decision, 1)
		go func() {
			done <- p.Evaluate(policy.Request{Method: "tools/call", Tool: "run", Args: map[string]any{"cmd": nest(c.n, c.inner)}})
		}()
		select {
		case d := <-done:
			if d.Outcome != c.want {
				t.Errorf("%d nested bodies around %q: %v (%s), want %v", c.n, c.inner, d.Outcome, d.Reason, c.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%d nested bodies: not decided within a minute", c.n)
		}
	}
}
