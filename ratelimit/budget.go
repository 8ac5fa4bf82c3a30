package ratelimit

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Limits is an agent's budget (QWED §6.1). A zero field means no limit.
// Windows are fixed and aligned to UTC: an hour window resets on the hour, a
// day window at 00:00 UTC (QWED §6.3 reset_at).
type Limits struct {
	RequestsPerHour  int64   // requests.max_per_hour
	RequestsPerDay   int64   // requests.max_per_day
	CostPerRequest   float64 // cost.max_per_request_usd, in USD
	CostPerDay       float64 // cost.max_daily_usd, in USD
	TokensPerRequest int64   // tokens.max_per_request
	TokensPerDay     int64   // tokens.max_daily
	HighRiskPerDay   int64   // tools.high_risk_calls_remaining, as a daily allowance
}

// Usage is what one call spends. Every charged call counts as one request.
type Usage struct {
	Cost     float64 // USD, >= 0; kept to the micro-dollar
	Tokens   int64   // >= 0
	HighRisk bool    // counts against Limits.HighRiskPerDay
}

// LimitName names one limit of [Limits] in denials (snake_case, as in QWED §6.1).
type LimitName string

// The limits of [Limits].
const (
	LimitRequestsPerHour  LimitName = "requests_per_hour"
	LimitRequestsPerDay   LimitName = "requests_per_day"
	LimitCostPerRequest   LimitName = "cost_per_request"
	LimitCostPerDay       LimitName = "cost_per_day"
	LimitTokensPerRequest LimitName = "tokens_per_request"
	LimitTokensPerDay     LimitName = "tokens_per_day"
	LimitHighRiskPerDay   LimitName = "high_risk_per_day"
)

// Code returns the QWED reason code of a denial by this limit.
func (n LimitName) Code() Code {
	switch n {
	case LimitCostPerRequest, LimitCostPerDay:
		return CodeBudgetCost
	case LimitTokensPerRequest, LimitTokensPerDay:
		return CodeBudgetTokens
	}
	return CodeBudgetRequests
}

func (n LimitName) isCost() bool { return n == LimitCostPerRequest || n == LimitCostPerDay }

func (n LimitName) format(v float64) string {
	if n.isCost() {
		return strconv.FormatFloat(v, 'f', -1, 64) + " USD"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// microUSD is the unit costs are counted in, so sums are exact.
const microUSD = 1e6

// maxCost keeps micro-dollar sums far from int64 overflow.
const maxCost = 1e12

func toMicros(usd float64) int64 { return int64(math.Round(usd * microUSD)) }

// Validate reports the first invalid field: negative, NaN or Inf, or a cost
// above one trillion USD.
func (l Limits) Validate() error {
	for _, f := range [...]struct {
		name LimitName
		v    int64
	}{{LimitRequestsPerHour, l.RequestsPerHour}, {LimitRequestsPerDay, l.RequestsPerDay},
		{LimitTokensPerRequest, l.TokensPerRequest}, {LimitTokensPerDay, l.TokensPerDay},
		{LimitHighRiskPerDay, l.HighRiskPerDay}} {
		if f.v < 0 {
			return fmt.Errorf("%w: limit %s is %d, want >= 0 (0 means no limit)", ErrInvalidOptions, f.name, f.v)
		}
	}
	for _, f := range [...]struct {
		name LimitName
		v    float64
	}{{LimitCostPerRequest, l.CostPerRequest}, {LimitCostPerDay, l.CostPerDay}} {
		if !(f.v >= 0 && f.v <= maxCost) {
			return fmt.Errorf("%w: limit %s is %v, want 0 to %v USD (0 means no limit)", ErrInvalidOptions, f.name, f.v, maxCost)
		}
	}
	return nil
}

func (u Usage) validate() error {
	if !(u.Cost >= 0 && u.Cost <= maxCost) {
		return fmt.Errorf("%w: usage cost %v, want 0 to %v USD", ErrInvalidOptions, u.Cost, maxCost)
	}
	if u.Tokens < 0 {
		return fmt.Errorf("%w: usage tokens %d, want >= 0", ErrInvalidOptions, u.Tokens)
	}
	return nil
}

// BudgetOptions configure a [Budget]. nil means defaults.
type BudgetOptions struct {
	// Store holds the counters. nil means a new [MemoryStore] with default caps.
	Store BudgetStore
	// Now is the budget's clock. nil means time.Now.
	Now func() time.Time
}

// Budget enforces [Limits] per agent (QWED §6). Call [Budget.Check] before
// deciding and [Budget.Charge] once the call is approved (QWED §9.5: denied
// calls are never charged). Charge re-checks atomically, so concurrent calls
// cannot overspend: with a limit of N, exactly N of any number of concurrent
// Charges succeed.
//
// A Budget is safe for concurrent use. Several Budgets (one per agent class,
// say) can share a store.
type Budget struct {
	limits Limits
	store  BudgetStore
	now    func() time.Time
}

// NewBudget returns a Budget enforcing l. opts may be nil.
func NewBudget(l Limits, opts *BudgetOptions) (*Budget, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	b := &Budget{limits: l, now: time.Now}
	if opts != nil {
		b.store = opts.Store
		if opts.Now != nil {
			b.now = opts.Now
		}
	}
	if b.store == nil {
		m, err := NewMemoryStore(nil)
		if err != nil {
			return nil, err
		}
		b.store = m
	}
	return b, nil
}

// Limits returns the budget's limits.
func (b *Budget) Limits() Limits { return b.limits }

// Check reports whether u fits the agent's budget now, without spending. A
// denial is a [*BudgetError]; any other error (store unavailable, ...) also
// means deny.
func (b *Budget) Check(ctx context.Context, agent string, u Usage) error {
	return b.spend(ctx, agent, u, SpendCheck)
}

// Charge spends u from the agent's budget if it fits, atomically; otherwise
// it spends nothing and returns the [*BudgetError] of the first limit that
// does not hold.
func (b *Budget) Charge(ctx context.Context, agent string, u Usage) error {
	return b.spend(ctx, agent, u, SpendCommit)
}

// Refund takes u back from the agent's counters, none below zero: for a
// call that was charged and then refused (its conversation step could not
// be committed, say), so that a denied call consumes nothing (QWED §9.5).
// A refund that comes after the window of the charge ends takes from the
// new window's counters (floored at zero).
func (b *Budget) Refund(ctx context.Context, agent string, u Usage) error {
	return b.spend(ctx, agent, u, SpendRefund)
}

// Record adds u to the agent's counters even past the limits: for usage that
// already happened, such as tokens reported after a call. Later Checks and
// Charges then see it.
func (b *Budget) Record(ctx context.Context, agent string, u Usage) error {
	return b.spend(ctx, agent, u, SpendForce)
}

// window returns the start and end of the fixed UTC window of size d around now.
func window(now time.Time, d time.Duration) (index int64, reset time.Time) {
	start := now.UTC().Truncate(d)
	return start.Unix() / int64(d/time.Second), start.Add(d)
}

// windowOf is the length of the window a windowed limit counts in.
func windowOf(n LimitName) time.Duration {
	if n == LimitRequestsPerHour {
		return time.Hour
	}
	return 24 * time.Hour
}

func (b *Budget) spend(ctx context.Context, agent string, u Usage, mode SpendMode) error {
	if err := u.validate(); err != nil {
		return err
	}
	if err := CheckKey("budget agent", agent); err != nil {
		return err
	}
	l := b.limits
	// Per-request limits need no state (QWED §6.2: cost first). Record
	// (SpendForce) is for usage that already happened and skips them.
	force := mode == SpendForce || mode == SpendRefund
	if !force && l.CostPerRequest > 0 && toMicros(u.Cost) > toMicros(l.CostPerRequest) {
		return &BudgetError{Code: CodeBudgetCost, Limit: LimitCostPerRequest, Max: l.CostPerRequest, Request: u.Cost}
	}
	if !force && l.TokensPerRequest > 0 && u.Tokens > l.TokensPerRequest {
		return &BudgetError{Code: CodeBudgetTokens, Limit: LimitTokensPerRequest, Max: float64(l.TokensPerRequest), Request: float64(u.Tokens)}
	}
	now := b.now()
	hour, hourReset := window(now, time.Hour)
	day, dayReset := window(now, 24*time.Hour)
	var highRisk int64
	if u.HighRisk {
		highRisk = 1
	}
	// Only limits that are set get a counter, and each counter lives until
	// its own window ends: an hourly-only budget keeps nothing past the hour.
	all := [...]struct {
		name  LimitName
		reset time.Time
		c     Counter
	}{
		{LimitCostPerDay, dayReset, Counter{Name: "cost/day/" + itoa(day), Add: toMicros(u.Cost), Max: toMicros(l.CostPerDay)}},
		{LimitRequestsPerHour, hourReset, Counter{Name: "requests/hour/" + itoa(hour), Add: 1, Max: l.RequestsPerHour}},
		{LimitRequestsPerDay, dayReset, Counter{Name: "requests/day/" + itoa(day), Add: 1, Max: l.RequestsPerDay}},
		{LimitTokensPerDay, dayReset, Counter{Name: "tokens/day/" + itoa(day), Add: u.Tokens, Max: l.TokensPerDay}},
		{LimitHighRiskPerDay, dayReset, Counter{Name: "high_risk/day/" + itoa(day), Add: highRisk, Max: l.HighRiskPerDay}},
	}
	names := make([]LimitName, 0, len(all))
	resets := make([]time.Time, 0, len(all))
	counters := make([]Counter, 0, len(all))
	for _, a := range all {
		if a.c.Max <= 0 {
			continue
		}
		a.c.TTL = a.reset.Sub(now)
		a.c.Age = now.Sub(a.reset.Add(-windowOf(a.name)))
		names, resets, counters = append(names, a.name), append(resets, a.reset), append(counters, a.c)
	}
	if len(counters) == 0 {
		return nil // no windowed limit: nothing to count
	}
	res, err := b.store.Spend(ctx, agent, counters, mode, now)
	if err != nil {
		return err
	}
	if len(res.Values) != len(counters) || res.Failed >= len(counters) {
		return fmt.Errorf("%w: budget store answered %d values and failed index %d for %d counters", ErrUnavailable, len(res.Values), res.Failed, len(counters))
	}
	if res.Failed < 0 || force {
		return nil
	}
	i := res.Failed
	e := &BudgetError{Code: names[i].Code(), Limit: names[i], ResetAt: resets[i],
		Max: float64(counters[i].Max), Current: float64(res.Values[i]), Request: float64(counters[i].Add)}
	if names[i].isCost() {
		e.Max, e.Current, e.Request = e.Max/microUSD, e.Current/microUSD, e.Request/microUSD
	}
	return e
}
