package gatehouse

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/scope"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// TestStageOrder pins the tools/call stages to the table doc.go promises,
// and shows a feature that is not configured has no stage.
func TestStageOrder(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var promised []string
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z]+) {2,}\S`).FindAllStringSubmatch(string(doc), -1) {
		promised = append(promised, m[1])
	}
	if len(promised) < 9 {
		t.Fatalf("doc.go lists %d stages: %v", len(promised), promised)
	}
	p, err := policy.Parse([]byte("apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {allowed_tools: [x]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	names := func(o *Options) []string {
		g, err := New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range g.before {
			out = append(out, s.name)
		}
		return out
	}
	cg, _ := ratelimit.NewGuard(nil)
	b, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 1}, nil)
	ts, _ := trust.NewMemoryStore(nil)
	sp, _ := scope.New(scope.Config{})
	all := names(&Options{Limits: &LimitOptions{Conversations: cg, Budget: b}, Trust: &TrustOptions{Store: ts}, Scopes: &ScopeOptions{Policy: sp}})
	if !slices.Equal(all, promised) {
		t.Fatalf("stages %v, doc.go promises %v", all, promised)
	}
	bare := names(nil)
	want := slices.DeleteFunc(slices.Clone(promised), func(s string) bool {
		return s == "trust" || s == "conversation" || s == "budget" || s == "scope"
	})
	if !slices.Equal(bare, want) {
		t.Fatalf("without limits or trust: %v, want %v", bare, want)
	}
	if strings.Join(bare, ",") == "" {
		t.Fatal("no stages")
	}
}
