package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

func ExampleParseRate() {
	r, err := ratelimit.ParseRate("10/min")
	fmt.Println(r, r.Interval(), err)
	_, err = ratelimit.ParseRate("10/fortnight")
	fmt.Println(errors.Is(err, ratelimit.ErrInvalidRate))
	// Output:
	// 10/minute 6s <nil>
	// true
}

func ExampleLimiter_AllowAt() {
	lim, _ := ratelimit.NewLimiter(ratelimit.MustParseRate("2/minute"), nil)
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	key := ratelimit.Key("agent-7", "send_email")
	for i := 0; i < 3; i++ {
		res, _ := lim.AllowAt(ctx, key, now)
		fmt.Println(res.Allowed, res.Remaining, res.RetryAfter)
	}
	res, _ := lim.AllowAt(ctx, key, now.Add(30*time.Second))
	fmt.Println(res.Allowed)
	// Output:
	// true 1 0s
	// true 0 0s
	// false 0 30s
	// true
}

func ExampleBudget() {
	now := time.Date(2025, 12, 20, 18, 30, 0, 0, time.UTC)
	b, _ := ratelimit.NewBudget(ratelimit.Limits{CostPerDay: 100}, &ratelimit.BudgetOptions{
		Now: func() time.Time { return now },
	})
	ctx := context.Background()
	fmt.Println(b.Charge(ctx, "agent-7", ratelimit.Usage{Cost: 97.5}))
	err := b.Charge(ctx, "agent-7", ratelimit.Usage{Cost: 5})
	fmt.Println(err)
	var be *ratelimit.BudgetError
	if errors.As(err, &be) {
		fmt.Println(be.Code, be.Limit, be.Max, be.Current, be.ResetAt.Format(time.RFC3339))
	}
	// Output:
	// <nil>
	// ratelimit: budget cost_per_day exceeded: 97.5 USD used, this request needs 5 USD more, limit 100 USD, resets at 2025-12-21T00:00:00Z (QWED-AGENT-BUDGET-001)
	// QWED-AGENT-BUDGET-001 cost_per_day 100 97.5 2025-12-21T00:00:00Z
}

func ExampleGuard() {
	g, _ := ratelimit.NewGuard(nil)
	ctx := context.Background()
	call := func(step int64, query string) {
		a := ratelimit.Action{Agent: "agent-7", ConversationID: "conv-42", Step: step,
			Tool: "sql", Args: map[string]any{"query": query}}
		r, err := g.Begin(ctx, a)
		if err != nil {
			fmt.Println("deny:", err)
			return
		}
		defer r.Release(ctx) // no-op once committed
		// ... the policy decides APPROVED or PENDING ...
		if err := r.Commit(ctx); err != nil {
			fmt.Println("deny:", err)
			return
		}
		fmt.Println("step", step, "ok")
	}
	call(1, "select 1")
	call(1, "select 2") // replay
	call(2, "select 1")
	call(3, "select 1") // third identical action in a row
	call(3, "select 3")
	// Output:
	// step 1 ok
	// deny: ratelimit: step 1 replays or precedes committed step 1; send step 2 or later (QWED-AGENT-LOOP-002)
	// step 2 ok
	// deny: ratelimit: the same tool call with the same arguments was committed 2 times in a row (at most 2 allowed); change the action (QWED-AGENT-LOOP-003)
	// step 3 ok
}
