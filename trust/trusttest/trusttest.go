package trusttest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/trust"
)

// NewStore returns a fresh, empty store whose unknown agents start at
// def and whose Record looks at windows of window decisions.
type NewStore func(t *testing.T, def trust.Level, window int) trust.Store

// TestStore checks the trust.Store contract (QWED §8): the
// default level, Set, every penalty of §8.3 with its floor, suspension that
// sticks, the >10%-denials window, refusal of bad input, and atomic updates
// under concurrency (no lost decision, no lost penalty).
func TestStore(t *testing.T, newStore NewStore) {
	t.Helper()
	ctx := context.Background()
	level := func(t *testing.T, s trust.Store, agent string) trust.Level {
		t.Helper()
		l, err := s.Level(ctx, agent)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	t.Run("DefaultAndSet", func(t *testing.T) {
		s := newStore(t, trust.Supervised, 10)
		if l := level(t, s, "a"); l != trust.Supervised {
			t.Fatalf("default %v", l)
		}
		if err := s.Set(ctx, "a", trust.Trusted); err != nil {
			t.Fatal(err)
		}
		if l := level(t, s, "a"); l != trust.Trusted {
			t.Fatalf("after Set: %v", l)
		}
		if l := level(t, s, "b"); l != trust.Supervised {
			t.Fatalf("another agent: %v", l)
		}
	})
	t.Run("Penalties", func(t *testing.T) {
		s := newStore(t, trust.Trusted, 10)
		steps := []struct {
			v    trust.Violation
			want trust.Level
		}{
			{trust.ViolationBudget, trust.Autonomous},
			{trust.ViolationSecurity, trust.Untrusted},
			{trust.ViolationSecurity, trust.Untrusted}, // floor
			{trust.ViolationComplaint, trust.Suspended},
			{trust.ViolationBudget, trust.Suspended}, // stays suspended
		}
		for _, st := range steps {
			l, err := s.Degrade(ctx, "a", st.v)
			if err != nil || l != st.want || level(t, s, "a") != st.want {
				t.Fatalf("after %s: %v, %v; want %v", st.v, l, err, st.want)
			}
		}
		if l, _ := s.Degrade(ctx, "b", trust.Violation("made_up")); l != trust.Suspended {
			t.Fatalf("an unknown violation must suspend: %v", l)
		}
	})
	t.Run("DenialWindow", func(t *testing.T) {
		s := newStore(t, trust.Supervised, 10)
		for i := range 10 { // 1 in 10: not more than 10%
			if _, err := s.Record(ctx, "a", i == 0); err != nil {
				t.Fatal(err)
			}
		}
		if l := level(t, s, "a"); l != trust.Supervised {
			t.Fatalf("10%% denials degraded to %v", l)
		}
		for i := range 10 { // 2 in 10: one level, when the window closes
			l, err := s.Record(ctx, "a", i < 2)
			if err != nil {
				t.Fatal(err)
			}
			if want := trust.Supervised; i < 9 && l != want {
				t.Fatalf("degraded before the window closed (decision %d): %v", i, l)
			}
		}
		if l := level(t, s, "a"); l != trust.Untrusted {
			t.Fatalf("20%% denials: %v, want untrusted", l)
		}
	})
	t.Run("RefusesBadInput", func(t *testing.T) {
		s := newStore(t, trust.Untrusted, 10)
		if err := s.Set(ctx, "a", trust.Level(9)); !errors.Is(err, trust.ErrInvalidRequest) {
			t.Fatalf("invalid level: %v", err)
		}
		if _, err := s.Level(ctx, ""); !errors.Is(err, trust.ErrInvalidRequest) {
			t.Fatalf("empty agent: %v", err)
		}
		long := make([]byte, trust.MaxAgentLen+1)
		for i := range long {
			long[i] = 'a'
		}
		if _, err := s.Record(ctx, string(long), true); !errors.Is(err, trust.ErrInvalidRequest) {
			t.Fatalf("over-long agent: %v", err)
		}
	})
	t.Run("ConcurrentRecordsAreAllCounted", func(t *testing.T) {
		// 1,000 decisions in one window of 1,000, 101 of them denials: the
		// window closes exactly once and drops exactly one level, unless an
		// update is lost.
		s := newStore(t, trust.Trusted, 1000)
		var wg sync.WaitGroup
		errs := make(chan error, 1000)
		for i := range 1000 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.Record(ctx, "a", i < 101); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if l := level(t, s, "a"); l != trust.Autonomous {
			t.Fatalf("after 1,000 concurrent decisions: %v, want autonomous (one level down)", l)
		}
	})
	t.Run("ConcurrentPenaltiesAllApply", func(t *testing.T) {
		s := newStore(t, trust.Trusted, 10)
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() { defer wg.Done(); s.Degrade(ctx, "a", trust.ViolationBudget) }()
		}
		wg.Wait()
		if l := level(t, s, "a"); l != trust.Untrusted {
			t.Fatalf("three concurrent budget violations from trusted: %v, want untrusted", l)
		}
	})
}
