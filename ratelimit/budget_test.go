package ratelimit_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// clock is a settable fake clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newBudget(t *testing.T, l ratelimit.Limits, c *clock) *ratelimit.Budget {
	t.Helper()
	b, err := ratelimit.NewBudget(l, &ratelimit.BudgetOptions{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantBudgetErr checks every field of a budget denial.
func wantBudgetErr(t *testing.T, err error, code ratelimit.Code, sentinel error, limit ratelimit.LimitName, max, current, request float64, reset time.Time) {
	t.Helper()
	var be *ratelimit.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BudgetError for %s", err, limit)
	}
	if be.Code != code || be.Limit != limit || be.Max != max || be.Current != current || be.Request != request || !be.ResetAt.Equal(reset) {
		t.Fatalf("got %+v\nwant code %s limit %s max %v current %v request %v reset %v", be, code, limit, max, current, request, reset)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("errors.Is(%v, %v) = false", err, sentinel)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "ratelimit: budget "+string(limit)+" exceeded") || !strings.Contains(msg, string(code)) {
		t.Fatalf("message %q does not name the limit and code", msg)
	}
	if !reset.IsZero() && !strings.Contains(msg, "resets at "+reset.Format(time.RFC3339)) {
		t.Fatalf("message %q does not give the reset time", msg)
	}
}

// Each deny reason of QWED §6, with its code, values and reset time.
func TestBudgetDenials(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2025, 12, 20, 13, 45, 0, 0, time.UTC)
	nextHour := time.Date(2025, 12, 20, 14, 0, 0, 0, time.UTC)
	midnight := time.Date(2025, 12, 21, 0, 0, 0, 0, time.UTC)

	t.Run("CostPerRequest", func(t *testing.T) {
		b := newBudget(t, ratelimit.Limits{CostPerRequest: 1}, &clock{now: start})
		if err := b.Check(ctx, "a", ratelimit.Usage{Cost: 1}); err != nil {
			t.Fatalf("cost exactly at the limit: %v", err)
		}
		err := b.Check(ctx, "a", ratelimit.Usage{Cost: 1.25})
		wantBudgetErr(t, err, ratelimit.CodeBudgetCost, ratelimit.ErrBudgetCost, ratelimit.LimitCostPerRequest, 1, 0, 1.25, time.Time{})
	})
	t.Run("CostPerDay", func(t *testing.T) {
		c := &clock{now: start}
		b := newBudget(t, ratelimit.Limits{CostPerDay: 100}, c)
		for range 4 {
			if err := b.Charge(ctx, "a", ratelimit.Usage{Cost: 25}); err != nil {
				t.Fatal(err)
			}
		}
		err := b.Charge(ctx, "a", ratelimit.Usage{Cost: 2.5})
		wantBudgetErr(t, err, ratelimit.CodeBudgetCost, ratelimit.ErrBudgetCost, ratelimit.LimitCostPerDay, 100, 100, 2.5, midnight)
		if err := b.Check(ctx, "other-agent", ratelimit.Usage{Cost: 2.5}); err != nil {
			t.Fatalf("another agent's budget: %v", err)
		}
		c.Add(midnight.Sub(start))
		if err := b.Charge(ctx, "a", ratelimit.Usage{Cost: 2.5}); err != nil {
			t.Fatalf("after the reset: %v", err)
		}
	})
	t.Run("RequestsPerHour", func(t *testing.T) {
		c := &clock{now: start}
		b := newBudget(t, ratelimit.Limits{RequestsPerHour: 3}, c)
		for range 3 {
			if err := b.Charge(ctx, "a", ratelimit.Usage{}); err != nil {
				t.Fatal(err)
			}
		}
		err := b.Check(ctx, "a", ratelimit.Usage{})
		wantBudgetErr(t, err, ratelimit.CodeBudgetRequests, ratelimit.ErrBudgetRequests, ratelimit.LimitRequestsPerHour, 3, 3, 1, nextHour)
		c.Add(nextHour.Sub(start) - time.Nanosecond)
		if err := b.Check(ctx, "a", ratelimit.Usage{}); err == nil {
			t.Fatal("allowed a nanosecond before the hour resets")
		}
		c.Add(time.Nanosecond)
		if err := b.Check(ctx, "a", ratelimit.Usage{}); err != nil {
			t.Fatalf("on the hour: %v", err)
		}
	})
	t.Run("RequestsPerDay", func(t *testing.T) {
		c := &clock{now: start}
		b := newBudget(t, ratelimit.Limits{RequestsPerDay: 2, RequestsPerHour: 10}, c)
		b.Charge(ctx, "a", ratelimit.Usage{})
		c.Add(time.Hour) // a new hour, same day
		b.Charge(ctx, "a", ratelimit.Usage{})
		err := b.Charge(ctx, "a", ratelimit.Usage{})
		wantBudgetErr(t, err, ratelimit.CodeBudgetRequests, ratelimit.ErrBudgetRequests, ratelimit.LimitRequestsPerDay, 2, 2, 1, midnight)
	})
	t.Run("TokensPerRequest", func(t *testing.T) {
		b := newBudget(t, ratelimit.Limits{TokensPerRequest: 4096}, &clock{now: start})
		err := b.Check(ctx, "a", ratelimit.Usage{Tokens: 4097})
		wantBudgetErr(t, err, ratelimit.CodeBudgetTokens, ratelimit.ErrBudgetTokens, ratelimit.LimitTokensPerRequest, 4096, 0, 4097, time.Time{})
	})
	t.Run("TokensPerDay", func(t *testing.T) {
		b := newBudget(t, ratelimit.Limits{TokensPerDay: 1000}, &clock{now: start})
		if err := b.Charge(ctx, "a", ratelimit.Usage{Tokens: 900}); err != nil {
			t.Fatal(err)
		}
		err := b.Charge(ctx, "a", ratelimit.Usage{Tokens: 101})
		wantBudgetErr(t, err, ratelimit.CodeBudgetTokens, ratelimit.ErrBudgetTokens, ratelimit.LimitTokensPerDay, 1000, 900, 101, midnight)
	})
	t.Run("HighRiskPerDay", func(t *testing.T) {
		b := newBudget(t, ratelimit.Limits{HighRiskPerDay: 1}, &clock{now: start})
		if err := b.Charge(ctx, "a", ratelimit.Usage{HighRisk: true}); err != nil {
			t.Fatal(err)
		}
		if err := b.Charge(ctx, "a", ratelimit.Usage{}); err != nil {
			t.Fatalf("a low-risk call after the high-risk allowance is used: %v", err)
		}
		err := b.Charge(ctx, "a", ratelimit.Usage{HighRisk: true})
		wantBudgetErr(t, err, ratelimit.CodeBudgetRequests, ratelimit.ErrBudgetRequests, ratelimit.LimitHighRiskPerDay, 1, 1, 1, midnight)
	})
}

func TestBudgetCheckDoesNotChargeAndDenialsSpendNothing(t *testing.T) {
	ctx := context.Background()
	b := newBudget(t, ratelimit.Limits{RequestsPerDay: 2, CostPerDay: 1}, &clock{now: t0})
	for range 10 {
		if err := b.Check(ctx, "a", ratelimit.Usage{Cost: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	// Over the cost limit: denied, and the request count is not spent either.
	if err := b.Charge(ctx, "a", ratelimit.Usage{Cost: 1.5}); !errors.Is(err, ratelimit.ErrBudgetCost) {
		t.Fatalf("charge over cost: %v", err)
	}
	for range 2 {
		if err := b.Charge(ctx, "a", ratelimit.Usage{Cost: 0.5}); err != nil {
			t.Fatalf("charge after a denial: %v", err)
		}
	}
	if err := b.Charge(ctx, "a", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrBudgetRequests) {
		t.Fatalf("third request: %v, want BUDGET-002", err)
	}
}

func TestBudgetRecordGoesPastLimits(t *testing.T) {
	ctx := context.Background()
	b := newBudget(t, ratelimit.Limits{TokensPerDay: 100, TokensPerRequest: 10}, &clock{now: t0})
	// Tokens reported after the call are recorded even past the limits.
	if err := b.Record(ctx, "a", ratelimit.Usage{Tokens: 150}); err != nil {
		t.Fatalf("Record: %v", err)
	}
	var be *ratelimit.BudgetError
	if err := b.Check(ctx, "a", ratelimit.Usage{Tokens: 1}); !errors.As(err, &be) || be.Current != 150 || be.Limit != ratelimit.LimitTokensPerDay {
		t.Fatalf("Check after Record: %v, want tokens_per_day with current 150", err)
	}
}

func TestBudgetChargeRaceInMemory(t *testing.T) {
	const n = 123
	b := newBudget(t, ratelimit.Limits{CostPerDay: n * 0.01}, &clock{now: t0})
	var ok atomic.Int64
	var wg sync.WaitGroup
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := b.Charge(context.Background(), "a", ratelimit.Usage{Cost: 0.01})
			if err == nil {
				ok.Add(1)
			} else if !errors.Is(err, ratelimit.ErrBudgetCost) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != n {
		t.Fatalf("%d charges of 0.01 USD fit a budget of %v USD, want %d", ok.Load(), n*0.01, n)
	}
}

func TestBudgetRejectsBadInput(t *testing.T) {
	for _, l := range []ratelimit.Limits{
		{RequestsPerHour: -1}, {RequestsPerDay: -1}, {TokensPerRequest: -1}, {TokensPerDay: -1}, {HighRiskPerDay: -1},
		{CostPerDay: -1}, {CostPerRequest: math.NaN()}, {CostPerDay: math.Inf(1)}, {CostPerDay: 2e12},
	} {
		if _, err := ratelimit.NewBudget(l, nil); !errors.Is(err, ratelimit.ErrInvalidOptions) {
			t.Errorf("NewBudget(%+v) = %v, want ErrInvalidOptions", l, err)
		}
	}
	b, err := ratelimit.NewBudget(ratelimit.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, u := range []ratelimit.Usage{{Cost: -0.01}, {Cost: math.NaN()}, {Cost: math.Inf(1)}, {Tokens: -1}} {
		if err := b.Charge(ctx, "a", u); !errors.Is(err, ratelimit.ErrInvalidOptions) {
			t.Errorf("Charge(%+v) = %v, want ErrInvalidOptions", u, err)
		}
	}
	if err := b.Charge(ctx, "", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrInvalidKey) {
		t.Errorf("Charge for an empty agent = %v, want ErrInvalidKey", err)
	}
	// No limits: everything fits.
	if err := b.Charge(ctx, "a", ratelimit.Usage{Cost: 1e6, Tokens: 1 << 40, HighRisk: true}); err != nil {
		t.Errorf("unlimited budget denied: %v", err)
	}
}

// failingStore fails every call, as a store that lost its backend.
type failingStore struct{ ratelimit.Store }

var errDown = errors.New("backend down")

func (failingStore) Spend(context.Context, string, []ratelimit.Counter, ratelimit.SpendMode, time.Time) (ratelimit.SpendResult, error) {
	return ratelimit.SpendResult{}, errDown
}

// lyingStore answers with the wrong number of values.
type lyingStore struct{ ratelimit.Store }

func (lyingStore) Spend(context.Context, string, []ratelimit.Counter, ratelimit.SpendMode, time.Time) (ratelimit.SpendResult, error) {
	return ratelimit.SpendResult{Failed: -1}, nil
}

func TestBudgetFailsClosed(t *testing.T) {
	for name, s := range map[string]ratelimit.BudgetStore{"failing": failingStore{}, "lying": lyingStore{}} {
		b, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerDay: 5}, &ratelimit.BudgetOptions{Store: s})
		if err := b.Check(context.Background(), "a", ratelimit.Usage{}); err == nil {
			t.Errorf("%s store: Check allowed", name)
		}
		if err := b.Charge(context.Background(), "a", ratelimit.Usage{}); err == nil {
			t.Errorf("%s store: Charge allowed", name)
		}
	}
}
