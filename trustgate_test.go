package gatehouse_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gatehouse-dev/gatehouse"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// TestTrustLevels: QWED §8 on top of the policy. A supervised agent is asked
// about high-risk tools the policy allows; a protected-path attempt costs
// two levels; a suspended agent is refused everything.
func TestTrustLevels(t *testing.T) {
	store, err := trust.NewMemoryStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const agent = "client:raw-agent"
	if err := store.Set(ctx, agent, trust.Autonomous); err != nil {
		t.Fatal(err)
	}
	src := `apiVersion: aip.io/v1alpha1
kind: AgentPolicy
metadata: {name: trust}
spec:
  allowed_tools: [list_me, deploy, echo]
  protected_paths: [/etc]
`
	var asked []string
	f := newFixture(t, src, &gatehouse.Options{Trust: &gatehouse.TrustOptions{Store: store}, Ask: &gatehouse.AskOptions{Asker: gatehouse.AskerFunc(func(ctx context.Context, r gatehouse.AskRequest) (gatehouse.Answer, error) {
		asked = append(asked, r.Tool+": "+r.Reason)
		return gatehouse.Answer{Approved: false}, nil
	})}})
	c := dialRaw(t, f.ct, "2025-06-18")
	code := func(res map[string]any) string {
		if e := rpcErr(res); e != nil {
			return fmt.Sprint(e["code"])
		}
		return "ok"
	}
	// Autonomous (2): only critical needs consent; deploy (unclassified) is high.
	if got := code(c.callTool(1, "deploy", map[string]any{"path": "/tmp/x"})); got != "ok" {
		t.Fatalf("autonomous delete: %s", got)
	}
	// A protected-path attempt: security violation, two levels down to untrusted.
	if got := code(c.callTool(2, "echo", map[string]any{"p": "/etc/shadow"})); got != "-32007" {
		t.Fatalf("protected path: %s", got)
	}
	if l, _ := store.Level(ctx, agent); l != trust.Untrusted {
		t.Fatalf("level after a security violation: %v", l)
	}
	// Untrusted (0): every action asks, even a low-risk read.
	if got := code(c.callTool(3, "list_me", map[string]any{"path": "/tmp/x"})); got != "-32004" {
		t.Fatalf("untrusted read: %s", got)
	}
	if len(asked) != 1 || asked[0] != "list_me: Trust level untrusted needs a human's consent for a low-risk action" {
		t.Errorf("asked %q", asked)
	}
	if err := store.Set(ctx, agent, trust.Suspended); err != nil {
		t.Fatal(err)
	}
	res := c.callTool(4, "list_me", map[string]any{"path": "/tmp/x"})
	if code(res) != "-32001" || fmt.Sprint(rpcErr(res)["data"]) != "map[reason:The agent is suspended (trust level) tool:list_me]" {
		t.Fatalf("suspended: %v", res)
	}
	if f.runs.Load() != 1 {
		t.Errorf("runs %d, want 1", f.runs.Load())
	}
}
