package scope_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/scope"
)

// numberPolicy: a uid of 0 (root) or a replica count of 100 needs a scope.
func numberPolicy(t *testing.T) *scope.Policy {
	t.Helper()
	p, err := scope.New(scope.Config{Tools: []scope.Tool{{Name: "run_as",
		Requirement: scope.Requirement{All: []string{"exec"}},
		When: []scope.When{
			{Args: map[string][]string{"uid": {"0"}}, Requirement: scope.Requirement{All: []string{"exec:root"}}},
			{Args: map[string][]string{"replicas": {"100"}}, Requirement: scope.Requirement{All: []string{"exec:fleet"}}},
			{Args: map[string][]string{"ratio": {"1.5"}}, Requirement: scope.Requirement{All: []string{"exec:ratio"}}},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRedTeam21_NumberSpellings: a handler decodes -0, 0.0 and 0e5 as the
// number 0 (into an int, -0 is 0), and 1e2 or 100.0 as 100: a number
// pattern matches the value, not only the spelling. Before the fix every
// one of these ran with only "exec".
func TestRedTeam21_NumberSpellings(t *testing.T) {
	p := numberPolicy(t)
	for _, c := range []struct{ args, missing string }{
		{`{"uid":0}`, "exec:root"},
		{`{"uid":-0}`, "exec:root"},
		{`{"uid":0.0}`, "exec:root"},
		{`{"uid":0e5}`, "exec:root"},
		{`{"uid":-0.0E-3}`, "exec:root"},
		{`{"uid":[1,-0]}`, "exec:root"},
		{`{"replicas":1e2}`, "exec:fleet"},
		{`{"replicas":1E+2}`, "exec:fleet"},
		{`{"replicas":100.000}`, "exec:fleet"},
		{`{"replicas":10000e-2}`, "exec:fleet"},
		{`{"ratio":1.50}`, "exec:ratio"},
		{`{"ratio":15e-1}`, "exec:ratio"},
		{`{"uid":1e-400}`, "exec:root"}, // underflows to 0 in a float64
	} {
		d, err := p.Check("run_as", []byte(c.args), []string{"exec"})
		if err != nil || d.Allowed || strings.Join(d.Missing, " ") != c.missing {
			t.Errorf("run_as %s: %+v, %v; want %s missing", c.args, d, err, c.missing)
		}
	}
	// Near misses: other values, and huge or tiny numbers, need only exec.
	for _, args := range []string{`{"uid":1}`, `{"uid":-1e-9}`, `{"uid":1e400}`, `{"replicas":1001}`, `{"replicas":99.99}`,
		`{"replicas":1e20}`, `{"ratio":1.05}`, `{"uid":"00"}`, `{"uid":10}`, `{"replicas":"1e2"}`} {
		d, err := p.Check("run_as", []byte(args), []string{"exec"})
		if err != nil || !d.Allowed {
			t.Errorf("near miss run_as %s: %+v, %v", args, d, err)
		}
	}
}

// TestRedTeam21_KeysGoJSONFolds: encoding/json (a raw handler decoding into
// a struct) matches member names case-insensitively, with the long s
// (U+017F) as "s" and the Kelvin sign (U+212A) as "k"; normalize.Name maps
// both the same way, so those keys are matched. Near misses: the dotless
// and dotted I, which encoding/json does not match to "i" either.
func TestRedTeam21_KeysGoJSONFolds(t *testing.T) {
	p, err := scope.New(scope.Config{Tools: []scope.Tool{{Name: "t", Requirement: scope.Requirement{All: []string{"base"}},
		When: []scope.When{
			{Args: map[string][]string{"stage": {"prod"}}, Requirement: scope.Requirement{All: []string{"stage:prod"}}},
			{Args: map[string][]string{"kind": {"secret"}}, Requirement: scope.Requirement{All: []string{"kind:secret"}}},
			{Args: map[string][]string{"image": {"root"}}, Requirement: scope.Requirement{All: []string{"image:root"}}},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, missing string }{
		{`{"ſtage":"prod"}`, "stage:prod"},
		{`{"STAGE":"prod"}`, "stage:prod"},
		{`{"\u212Aind":"secret"}`, "kind:secret"},
		{`{"kind":"ſecret"}`, "kind:secret"},
		{`{"IMAGE":"root"}`, "image:root"},
	} {
		if d, err := p.Check("t", []byte(c.args), []string{"base"}); err != nil || d.Allowed || strings.Join(d.Missing, " ") != c.missing {
			t.Errorf("%s: %+v, %v; want %s missing", c.args, d, err, c.missing)
		}
	}
	for _, args := range []string{`{"ımage":"root"}`, `{"İmage":"root"}`} {
		if d, err := p.Check("t", []byte(args), []string{"base"}); err != nil || !d.Allowed {
			t.Errorf("near miss %s: %+v, %v", args, d, err)
		}
	}
}
