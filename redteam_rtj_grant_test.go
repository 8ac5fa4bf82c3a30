package gatehouse_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/grant"
)

// Red team RTJ (argument-rule semantics): a remembered approval that
// takes "the rule's patterns" stands for what the pattern accepted when
// the human approved, not for whatever pattern is in force later.

// rtjGrantReload is grantPolicy with deploy's allow_args pattern for env
// replaced by pattern, served by a guard sharing store.
func rtjGrantReload(t *testing.T, store grant.Store, pattern string) *rt20 {
	t.Helper()
	src := strings.Replace(grantPolicy, `allow_args: {env: "^(staging|prod)$"}`, `allow_args: {env: "`+pattern+`"}`, 1)
	if pattern != "^(staging|prod)$" && src == grantPolicy {
		t.Fatal("the policy edit did not apply")
	}
	offers := map[string][]grant.Scope{"deploy": {rt20DayPatterns}}
	return newRT20(t, src, &gatehouse.Options{Grants: &gatehouse.GrantOptions{Store: store, Offers: offers, ForUnauthenticated: true}}, nil, rt20Tool("deploy", "d"))
}

// TestRedTeamRTJ_PatternGrantWidenedByReload: the human approves deploy
// {"env":"staging"} with a scope that takes the rule's patterns, under a
// rule that allows staging or prod. The policy is then reloaded (a shared
// Redis store, or one store handed to the Guard of each reload) with a
// wider pattern for the same argument. The old grant must not answer the
// values only the new pattern accepts: the human approved "staging or
// prod", and no one approved "any word". Before the fix the grant was
// bound to the argument's name only (Query.Patterned), so it covered them
// without asking.
func TestRedTeamRTJ_PatternGrantWidenedByReload(t *testing.T) {
	store, err := grant.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	v1 := rtjGrantReload(t, store, "^(staging|prod)$")
	v1.scope.Store("day-patterns")
	if ran, asked, res := v1.call("deploy", `{"env":"staging"}`); !ran || !asked {
		t.Fatalf("approving call: %v", res)
	}
	for _, wider := range []string{`^.+$`, `^[a-z-]+$`, `^(staging|prod|production-eu)$`, `(staging|prod)`, `^(staging|prod)`} {
		v2 := rtjGrantReload(t, store, wider)
		for _, v := range []string{`"production-eu"`, `"prod"`} {
			if ran, asked, res := v2.call("deploy", `{"env":`+v+`}`); ran && !asked {
				t.Errorf("pattern %q, env %s: a grant approved under ^(staging|prod)$ answered it without asking: %v", wider, v, res)
			}
		}
	}
	// Near misses: the same pattern, in this guard or a reload of the same
	// policy, still uses the grant for any value it accepts.
	if ran, asked, res := v1.call("deploy", `{"env":"prod"}`); !ran || asked {
		t.Errorf("near miss, same guard: %v", res)
	}
	same := rtjGrantReload(t, store, "^(staging|prod)$")
	if ran, asked, res := same.call("deploy", `{"env":"prod"}`); !ran || asked {
		t.Errorf("near miss, the same policy reloaded: %v", res)
	}
}

// TestRedTeamRTJ_PatternGrantNarrowedByReload: a narrower pattern is
// another pattern too. The policy refuses what the new pattern refuses
// before any grant is looked at, and what it accepts was accepted by the
// old pattern as well; the grant is still void, so every change of the
// rule asks once again (simple, and never wider).
func TestRedTeamRTJ_PatternGrantNarrowedByReload(t *testing.T) {
	store, err := grant.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	v1 := rtjGrantReload(t, store, "^(staging|prod)$")
	v1.scope.Store("day-patterns")
	if ran, asked, res := v1.call("deploy", `{"env":"staging"}`); !ran || !asked {
		t.Fatalf("approving call: %v", res)
	}
	v2 := rtjGrantReload(t, store, "^staging$")
	if ran, asked, res := v2.call("deploy", `{"env":"prod"}`); ran || asked {
		t.Errorf("a value the new pattern refuses: %v (ran=%v asked=%v)", res, ran, asked)
	}
	if ran, asked, res := v2.call("deploy", `{"env":"staging"}`); !ran || !asked {
		t.Errorf("a value both patterns accept asks again under the new rule: %v (ran=%v asked=%v)", res, ran, asked)
	}
}
