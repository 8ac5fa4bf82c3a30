package grant_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/grant"
)

// TestCanonicalArgs: one form per value; what the strict form refuses
// (duplicates, folded names, rounded numbers, non-objects) is an error, so
// such a call never matches a grant.
func TestCanonicalArgs(t *testing.T) {
	same := []string{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`, `{"a":1.0,"b":"\u0078"}`, ` {"a" : 10e-1 , "b":"x"} `}
	for _, raw := range same {
		m, err := grant.CanonicalArgs([]byte(raw))
		if err != nil || len(m) != 2 || m["a"] != "1" || m["b"] != `"x"` {
			t.Errorf("%s: %v, %v", raw, m, err)
		}
	}
	for _, raw := range []string{`{"a":1,"a":2}`, `{"a":1,"A":2}`, `{"a":1e400}`, `{"a":12345678901234567891}`, `[1]`, `"x"`, `{"a":1} x`, `{`} {
		if m, err := grant.CanonicalArgs([]byte(raw)); !errors.Is(err, grant.ErrInvalid) {
			t.Errorf("%s: %v, %v; want ErrInvalid", raw, m, err)
		}
	}
	for _, raw := range []string{``, `null`, ` null `} {
		if m, err := grant.CanonicalArgs([]byte(raw)); err != nil || len(m) != 0 {
			t.Errorf("%q: %v, %v; want no arguments", raw, m, err)
		}
	}
}

func TestScopeAndChoose(t *testing.T) {
	offered := []grant.Scope{{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}, {ID: "session", Duration: time.Hour, Session: true}}
	for _, s := range offered {
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", s.ID, err)
		}
	}
	for _, id := range []string{"", "once"} {
		if _, ok, err := grant.Choose(offered, id); ok || err != nil {
			t.Errorf("Choose(%q) = %v, %v; want once", id, ok, err)
		}
	}
	if s, ok, err := grant.Choose(offered, "session"); !ok || err != nil || !s.Session {
		t.Errorf("Choose(session) = %+v, %v, %v", s, ok, err)
	}
	for _, id := range []string{"Session", "forever", "session ", strings.Repeat("a", 65)} {
		if _, _, err := grant.Choose(offered, id); !errors.Is(err, grant.ErrInvalid) {
			t.Errorf("Choose(%q) = %v; want ErrInvalid", id, err)
		}
	}
	// A session scope needs a session id.
	if _, err := grant.New(offered[1], grant.Binding{Principal: "user:a", Tool: "t", Digest: "d"}, nil, nil, grant.AttestedHuman, time.Now()); !errors.Is(err, grant.ErrInvalid) {
		t.Errorf("session scope without a session: %v, want ErrInvalid", err)
	}
	// Bounds of a grant.
	if _, err := grant.New(offered[0], grant.Binding{Principal: strings.Repeat("p", grant.MaxPrincipalLen+1), Tool: "t", Digest: "d"}, nil, nil, "", time.Now()); !errors.Is(err, grant.ErrInvalid) {
		t.Errorf("long principal: %v, want ErrInvalid", err)
	}
	args := map[string]string{}
	for i := range grant.MaxArgs + 1 {
		args[strings.Repeat("k", i+1)] = "1"
	}
	if _, err := grant.New(offered[0], grant.Binding{Principal: "user:a", Tool: "t", Digest: "d"}, args, nil, "", time.Now()); !errors.Is(err, grant.ErrInvalid) {
		t.Errorf("too many arguments: %v, want ErrInvalid", err)
	}
}

// TestCoversRuleConstraintNeedsItsPattern: a Rule constraint covers a
// value only under the pattern it was approved with; one stored without
// a pattern (an older version's) covers nothing, and a pattern on an
// exact constraint is malformed.
func TestCoversRuleConstraintNeedsItsPattern(t *testing.T) {
	b := grant.Binding{Principal: "user:a", Tool: "deploy", Digest: "d"}
	s := grant.Scope{ID: "p", Duration: time.Hour, Patterns: true}
	g, err := grant.New(s, b, map[string]string{"env": `"staging"`}, map[string]string{"env": "^(staging|prod)$"}, grant.AttestedHuman, time.Now())
	if err != nil || g.Args["env"] != (grant.Constraint{Rule: true, Pattern: "^(staging|prod)$"}) {
		t.Fatalf("New: %+v, %v", g.Args, err)
	}
	q := grant.Query{Principal: "user:a", Tool: "deploy", Digest: "d", Args: map[string]string{"env": `"prod"`}}
	for _, pats := range []map[string]string{nil, {"env": "^.+$"}, {"env": "^(staging|prod)"}, {"Env": "^(staging|prod)$"}} {
		q.Patterns = pats
		if g.Covers(q) {
			t.Errorf("patterns in force %v: covered", pats)
		}
	}
	q.Patterns = map[string]string{"env": "^(staging|prod)$"}
	if !g.Covers(q) {
		t.Error("near miss: the same pattern in force does not cover")
	}
	g.Args["env"] = grant.Constraint{Rule: true}
	if err := g.Validate(); err != nil || g.Covers(q) {
		t.Errorf("a stored rule constraint without a pattern: valid %v, covers %v", err, g.Covers(q))
	}
	g.Args["env"] = grant.Constraint{Exact: `"prod"`, Pattern: "^.+$"}
	if err := g.Validate(); !errors.Is(err, grant.ErrInvalid) {
		t.Errorf("an exact constraint with a pattern: %v, want ErrInvalid", err)
	}
	// Without Scope.Patterns, a rule's pattern never makes a Rule constraint.
	g, _ = grant.New(grant.Scope{ID: "x", Duration: time.Hour}, b, map[string]string{"env": `"staging"`}, map[string]string{"env": "^.+$"}, grant.AttestedHuman, time.Now())
	if g.Args["env"] != (grant.Constraint{Exact: `"staging"`}) {
		t.Errorf("exact scope: %+v", g.Args)
	}
}
