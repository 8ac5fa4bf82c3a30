package consent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
)

func TestTrustLevelRequiresConsent(t *testing.T) {
	risks := []consent.Risk{consent.RiskLow, consent.RiskMedium, consent.RiskHigh, consent.RiskCritical, "bogus"}
	// QWED §8.1, row by row: which of low, medium, high, critical, unknown need consent.
	want := map[consent.TrustLevel][5]bool{
		consent.TrustSuspended:  {true, true, true, true, true},
		consent.TrustUntrusted:  {true, true, true, true, true},
		consent.TrustSupervised: {false, false, true, true, true},
		consent.TrustAutonomous: {false, false, false, true, true},
		consent.TrustTrusted:    {false, false, false, false, false},
		consent.TrustLevel(7):   {true, true, true, true, true},
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
		from consent.TrustLevel
		v    consent.Violation
		want consent.TrustLevel
	}{
		{consent.TrustTrusted, consent.ViolationSecurity, consent.TrustSupervised},
		{consent.TrustSupervised, consent.ViolationSecurity, consent.TrustUntrusted},
		{consent.TrustAutonomous, consent.ViolationDenials, consent.TrustSupervised},
		{consent.TrustAutonomous, consent.ViolationBudget, consent.TrustSupervised},
		{consent.TrustUntrusted, consent.ViolationBudget, consent.TrustUntrusted},
		{consent.TrustTrusted, consent.ViolationComplaint, consent.TrustSuspended},
		{consent.TrustSuspended, consent.ViolationBudget, consent.TrustSuspended},
		{consent.TrustTrusted, "unknown", consent.TrustSuspended},
	}
	for _, c := range cases {
		if got := c.from.Degrade(c.v); got != c.want {
			t.Errorf("%v.Degrade(%s) = %v, want %v", c.from, c.v, got, c.want)
		}
	}
}

// TestMemoryTrustStoreConformance runs the shared trust-store kit.
func TestMemoryTrustStoreConformance(t *testing.T) {
	consenttest.TestTrustStore(t, func(t *testing.T, def consent.TrustLevel, window int) consent.TrustStore {
		s, err := consent.NewMemoryTrustStore(&consent.MemoryTrustOptions{Default: def, Window: window})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestMemoryTrustStore(t *testing.T) {
	ctx := context.Background()
	s, err := consent.NewMemoryTrustStore(&consent.MemoryTrustOptions{Default: consent.TrustSupervised, MaxAgents: 2, Window: 10})
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Level(ctx, "a"); l != consent.TrustSupervised {
		t.Fatalf("default level %v", l)
	}
	if err := s.Set(ctx, "a", consent.TrustTrusted); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.Degrade(ctx, "a", consent.ViolationSecurity); l != consent.TrustSupervised {
		t.Fatalf("after a security violation: %v", l)
	}
	// 1 denial in 10 is 10%: not more than 10%, no change.
	for i := range 10 {
		if _, err := s.Record(ctx, "b", i == 0); err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := s.Level(ctx, "b"); l != consent.TrustSupervised {
		t.Fatalf("10%% denials degraded to %v", l)
	}
	// 2 in 10 is more than 10%: one level down at the end of the window.
	var l consent.TrustLevel
	for i := range 10 {
		l, _ = s.Record(ctx, "b", i < 2)
		if i < 9 && l != consent.TrustSupervised {
			t.Fatalf("degraded before the window closed (decision %d)", i)
		}
	}
	if l != consent.TrustUntrusted {
		t.Fatalf("20%% denials: level %v, want untrusted", l)
	}
	// Bounded: a third agent cannot be stored, and that fails closed.
	if _, err := s.Degrade(ctx, "c", consent.ViolationBudget); !errors.Is(err, consent.ErrCapacity) {
		t.Fatalf("third agent: %v, want ErrCapacity", err)
	}
	if err := s.Set(ctx, "a", consent.TrustLevel(9)); !errors.Is(err, consent.ErrInvalidRequest) {
		t.Fatalf("invalid level: %v", err)
	}
	if _, err := s.Level(ctx, ""); !errors.Is(err, consent.ErrInvalidRequest) {
		t.Fatalf("empty agent: %v", err)
	}
	if _, err := consent.NewMemoryTrustStore(&consent.MemoryTrustOptions{Default: 5}); !errors.Is(err, consent.ErrInvalidOptions) {
		t.Fatalf("bad default: %v", err)
	}
}
