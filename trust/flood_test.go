package trust_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/gatehouse-dev/gatehouse/trust"
)

// TestMemoryStoreFloodOfNames (DESIGN §3 item 15): client names are
// self-declared, and the guard records every call's outcome, so one
// client that calls under 10,000 distinct names filled a MemoryStore of
// 100 agents for good: after it, no new agent could be Set, suspended or
// degraded (ErrCapacity), so an operator could not suspend an abusive
// new user and, with a Default above Untrusted, a new agent's
// protected-path attempts cost it nothing. Agents at the default level
// are now evicted to make room; agents set or degraded never are.
func TestMemoryStoreFloodOfNames(t *testing.T) {
	ctx := context.Background()
	for _, def := range []trust.Level{trust.Untrusted, trust.Autonomous} {
		t.Run(def.String(), func(t *testing.T) {
			s, err := trust.NewMemoryStore(&trust.MemoryOptions{Default: def, MaxAgents: 100})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Degrade(ctx, "user:abuser", trust.ViolationComplaint); err != nil {
				t.Fatal(err)
			}
			if err := s.Set(ctx, "user:bot", trust.Trusted); err != nil {
				t.Fatal(err)
			}
			for i := range 10_000 {
				if _, err := s.Record(ctx, "client:flood-"+strconv.Itoa(i), i%2 == 0); err != nil {
					t.Fatalf("flood name %d: %v", i, err)
				}
			}
			if err := s.Set(ctx, "user:new", trust.Trusted); err != nil {
				t.Fatalf("Set of a new agent after the flood: %v", err)
			}
			if l, err := s.Degrade(ctx, "user:new-abuser", trust.ViolationComplaint); err != nil || l != trust.Suspended {
				t.Fatalf("suspending a new agent after the flood: %v, %v", l, err)
			}
			want := map[string]trust.Level{"user:abuser": trust.Suspended, "user:bot": trust.Trusted, "user:new": trust.Trusted, "user:new-abuser": trust.Suspended}
			if def > trust.Untrusted {
				l, err := s.Degrade(ctx, "client:new-prober", trust.ViolationSecurity)
				if err != nil || l != def.Degrade(trust.ViolationSecurity) {
					t.Fatalf("degrading a new agent after the flood: %v, %v", l, err)
				}
				want["client:new-prober"] = l
			}
			// Another flood evicts none of them.
			for i := range 10_000 {
				if _, err := s.Record(ctx, "client:again-"+strconv.Itoa(i), true); err != nil {
					t.Fatalf("second flood name %d: %v", i, err)
				}
			}
			for a, w := range want {
				if l, err := s.Level(ctx, a); err != nil || l != w {
					t.Errorf("%s after two floods: %v, %v; want %v", a, l, err, w)
				}
			}
		})
	}
}

// TestMemoryStoreFullOfDecisions: when every agent held was set or
// degraded, nothing is evicted and a new agent's change is refused with
// ErrCapacity, naming the cap; Level still answers the default.
func TestMemoryStoreFullOfDecisions(t *testing.T) {
	ctx := context.Background()
	s, err := trust.NewMemoryStore(&trust.MemoryOptions{MaxAgents: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"a", "b", "c"} {
		if err := s.Set(ctx, a, trust.Supervised); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Record(ctx, "d", false); !errors.Is(err, trust.ErrCapacity) {
		t.Fatalf("a fourth agent in a store of 3 set agents: %v, want ErrCapacity", err)
	}
	if l, err := s.Level(ctx, "d"); err != nil || l != trust.Untrusted {
		t.Fatalf("level of the refused agent: %v, %v", l, err)
	}
	for _, a := range []string{"a", "b", "c"} {
		if l, _ := s.Level(ctx, a); l != trust.Supervised {
			t.Fatalf("%s: %v", a, l)
		}
	}
	// Near miss: once one of them is back at the default, it makes room.
	if err := s.Set(ctx, "b", trust.Untrusted); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(ctx, "d", true); err != nil {
		t.Fatalf("with b back at the default: %v", err)
	}
}
