package gatehouse_test

import (
	"context"
	"testing"

	"github.com/gatehouse-dev/gatehouse"
)

// panickyMethodObserver panics when told of an allowed request other than
// tools/call.
type panickyMethodObserver struct{ *recorder }

func (p panickyMethodObserver) Decision(ctx context.Context, d gatehouse.DecisionEvent) {
	if d.Method != "tools/call" && d.Outcome == "ALLOW" {
		panic("observer bug")
	}
	p.recorder.Decision(ctx, d)
}

// Red team of the Observer fix (rtg): a request other than tools/call is
// audited ALLOW before the Observer is told; a panic there was recovered by
// the guard as a failure and audited again, DENY, for the same request (and
// the request refused after its ALLOW was on record). As for a committed
// call, the Observer's panic after the audit is recovered and the request
// goes on, audited once.
func TestRedTeamRTG_ObserverPanicAfterMethodAudit(t *testing.T) {
	f := newFixture(t, basePolicy, &gatehouse.Options{Observer: panickyMethodObserver{&recorder{}}})
	c := dialRaw(t, f.ct, newProtocol)
	res := c.request(1, "tools/list", map[string]any{})
	if e := rpcErr(res); e != nil {
		t.Fatalf("tools/list refused for the Observer's panic: %v", res)
	}
	n := 0
	for _, e := range f.events(t) {
		if e["method"] == "tools/list" {
			n++
			if e["decision"] != "ALLOW" {
				t.Errorf("audited %v", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("tools/list audited %d times, want once:\n%s", n, f.log.String())
	}
}
