package terminal_test

import (
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// t0 is the fixed start of every fake clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// clock is a fake clock safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// newRequest returns a consent request for send_email made at c's time.
func newRequest(t testing.TB, c *clock, params map[string]any) *consent.ConsentRequest {
	t.Helper()
	req, err := consent.NewConsentRequest(consent.Action{
		Tool: "send_email", Category: policy.CategoryCommunication, RiskLevel: policy.RiskHigh, Parameters: params,
	}, consent.Agent{ID: "agent-1"}, consent.PolicyRef{RuleID: "r1"}, c.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
