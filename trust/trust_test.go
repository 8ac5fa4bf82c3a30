package trust_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/trust"
	"github.com/gatehouse-dev/gatehouse/trust/trusttest"
)

func TestTrustLevelRequiresConsent(t *testing.T) {
	risks := []policy.Risk{policy.RiskLow, policy.RiskMedium, policy.RiskHigh, policy.RiskCritical, "bogus"}
	// QWED §8.1, row by row: which of low, medium, high, critical, unknown need consent.
	want := map[trust.Level][5]bool{
		trust.Suspended:  {true, true, true, true, true},
		trust.Untrusted:  {true, true, true, true, true},
		trust.Supervised: {false, false, true, true, true},
		trust.Autonomous: {false, false, false, true, true},
		trust.Trusted:    {false, false, false, false, false},
		trust.Level(7):   {true, true, true, true, true},
	}
	for l, row := range want {
		for i, r := range risks {
			if got := l.RequiresConsent(r); got != row[i] {
				t.Errorf("%v.RequiresConsent(%q) = %v, want %v", l, r, got, row[i])
			}
		}
	}
}

func TestTrustLevelDegrade(t *testing.T) {
	cases := []struct {
		from trust.Level
		v    trust.Violation
		want trust.Level
	}{
		{trust.Trusted, trust.ViolationSecurity, trust.Supervised},
		{trust.Supervised, trust.ViolationSecurity, trust.Untrusted},
		{trust.Autonomous, trust.ViolationDenials, trust.Supervised},
		{trust.Autonomous, trust.ViolationBudget, trust.Supervised},
		{trust.Untrusted, trust.ViolationBudget, trust.Untrusted},
		{trust.Trusted, trust.ViolationComplaint, trust.Suspended},
		{trust.Suspended, trust.ViolationBudget, trust.Suspended},
		{trust.Trusted, "unknown", trust.Suspended},
	}
	for _, c := range cases {
		if got := c.from.Degrade(c.v); got != c.want {
			t.Errorf("%v.Degrade(%s) = %v, want %v", c.from, c.v, got, c.want)
		}
	}
}

// TestMemoryTrustStoreConformance runs the shared trust-store kit.
func TestMemoryTrustStoreConformance(t *testing.T) {
	trusttest.TestStore(t, func(t *testing.T, def trust.Level, window int) trust.Store {
		s, err := trust.NewMemoryStore(&trust.MemoryOptions{Default: def, Window: window})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestMemoryTrustStore(t *testing.T) {
	ctx := context.Background()
	s, err := trust.NewMemoryStore(&trust.MemoryOptions{Default: trust.Supervised, MaxAgents: 2, Window: 10})
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Level(ctx, "a"); l != trust.Supervised {
		t.Fatalf("default level %v", l)
	}
	if err := s.Set(ctx, "a", trust.Trusted); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Degrade(ctx, "a", trust.ViolationSecurity); l != trust.Supervised {
		t.Fatalf("after a security violation: %v", l)
	}
	// 1 denial in 10 is 10%: not more than 10%, no change.
	for i := range 10 {
		if _, err := s.Record(ctx, "b", i == 0); err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := s.Level(ctx, "b"); l != trust.Supervised {
		t.Fatalf("10%% denials degraded to %v", l)
	}
	// 2 in 10 is more than 10%: one level down at the end of the window.
	var l trust.Level
	for i := range 10 {
		l, _ = s.Record(ctx, "b", i < 2)
		if i < 9 && l != trust.Supervised {
			t.Fatalf("degraded before the window closed (decision %d)", i)
		}
	}
	if l != trust.Untrusted {
		t.Fatalf("20%% denials: level %v, want untrusted", l)
	}
	// Bounded: a third agent cannot be stored while a and b are held at
	// levels other than the default (see TestMemoryStoreFullOfDecisions).
	if err := s.Set(ctx, "a", trust.Trusted); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Degrade(ctx, "c", trust.ViolationBudget); !errors.Is(err, trust.ErrCapacity) {
		t.Fatalf("third agent: %v, want ErrCapacity", err)
	}
	if err := s.Set(ctx, "a", trust.Level(9)); !errors.Is(err, trust.ErrInvalidRequest) {
		t.Fatalf("invalid level: %v", err)
	}
	if _, err := s.Level(ctx, ""); !errors.Is(err, trust.ErrInvalidRequest) {
		t.Fatalf("empty agent: %v", err)
	}
	if _, err := trust.NewMemoryStore(&trust.MemoryOptions{Default: 5}); !errors.Is(err, trust.ErrInvalidOptions) {
		t.Fatalf("bad default: %v", err)
	}
}
