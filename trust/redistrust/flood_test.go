package redistrust_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/trust"
	"github.com/gatehouse-dev/gatehouse/trust/redistrust"
)

// TestFloodOfNamesIsBounded (DESIGN §3 item 15): the guard records every
// call's outcome under the caller's identity, and client names are
// self-declared, so one client calling under 5,000 names left 5,000
// hashes in Redis for the TTL (30 days): enough of them fill maxmemory,
// and noeviction then refuses every write of everything sharing the
// Redis. The agents with state are now capped, evicting agents at the
// default level only: those set or degraded survive any flood.
func TestFloodOfNamesIsBounded(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	ctx := context.Background()
	for _, def := range []trust.Level{trust.Untrusted, trust.Autonomous} {
		t.Run(def.String(), func(t *testing.T) {
			prefix := "flood-" + def.String() + ":"
			s, err := redistrust.New(ctx, c, &redistrust.Options{Prefix: prefix, Default: def, MaxAgents: 100, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Degrade(ctx, "user:abuser", trust.ViolationComplaint); err != nil {
				t.Fatal(err)
			}
			if err := s.Set(ctx, "user:bot", trust.Trusted); err != nil {
				t.Fatal(err)
			}
			want := map[string]trust.Level{"user:abuser": trust.Suspended, "user:bot": trust.Trusted}
			if def > trust.Untrusted {
				l, err := s.Degrade(ctx, "user:prober", trust.ViolationSecurity)
				if err != nil {
					t.Fatal(err)
				}
				want["user:prober"] = l
			}
			for i := range 5_000 {
				if _, err := s.Record(ctx, "client:flood-"+strconv.Itoa(i), i%3 == 0); err != nil {
					t.Fatalf("flood name %d: %v", i, err)
				}
			}
			keys, err := c.Keys(ctx, prefix+"*").Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) > 102 { // the agents, the index and the marker
				t.Fatalf("%d keys under %q after a flood of 5,000 names with MaxAgents 100", len(keys), prefix)
			}
			for a, w := range want {
				if l, err := s.Level(ctx, a); err != nil || l != w {
					t.Errorf("%s after the flood: %v, %v; want %v", a, l, err, w)
				}
			}
			// A new agent is served after it: it can be suspended.
			if l, err := s.Degrade(ctx, "user:new-abuser", trust.ViolationComplaint); err != nil || l != trust.Suspended {
				t.Fatalf("suspending a new agent after the flood: %v, %v", l, err)
			}
		})
	}
}

// TestFullOfDecisionsRefuses: when every agent held was set or degraded,
// nothing is evicted and a new agent's change fails with ErrCapacity,
// naming the option; Level still answers; one agent back at the default
// makes room.
func TestFullOfDecisionsRefuses(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	s, err := redistrust.New(ctx, client(t, srv), &redistrust.Options{MaxAgents: 3, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"a", "b", "c"} {
		if err := s.Set(ctx, a, trust.Supervised); err != nil {
			t.Fatal(err)
		}
	}
	_, err = s.Record(ctx, "d", false)
	if !errors.Is(err, trust.ErrCapacity) || !strings.Contains(err.Error(), "MaxAgents") {
		t.Fatalf("a fourth agent among 3 set ones: %v, want ErrCapacity naming MaxAgents", err)
	}
	if l, err := s.Level(ctx, "d"); err != nil || l != trust.Untrusted {
		t.Fatalf("level of the refused agent: %v, %v", l, err)
	}
	// Near misses: a held agent still changes; one back at the default
	// makes room.
	if _, err := s.Degrade(ctx, "a", trust.ViolationBudget); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "b", trust.Untrusted); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(ctx, "d", true); err != nil {
		t.Fatalf("with b back at the default: %v", err)
	}
	if l, _ := s.Level(ctx, "c"); l != trust.Supervised {
		t.Fatalf("c: %v", l)
	}
}
