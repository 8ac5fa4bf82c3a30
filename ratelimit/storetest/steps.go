package storetest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

var params = ratelimit.StepParams{MaxRepeats: 2, ReservationTTL: time.Minute, ConversationTTL: time.Hour}

func fp(b byte) ratelimit.Fingerprint { return ratelimit.Fingerprint{b} }

func testSteps(t *testing.T, newStore func(t *testing.T) ratelimit.Store) {
	ctx := context.Background()
	reserve := func(t *testing.T, s ratelimit.Store, step int64, f ratelimit.Fingerprint, now time.Time) ratelimit.StepResult {
		t.Helper()
		res, err := s.Reserve(ctx, "conv", step, f, params, now)
		if err != nil {
			t.Fatalf("Reserve(step %d): %v", step, err)
		}
		return res
	}
	commit := func(t *testing.T, s ratelimit.Store, step int64, token string, f ratelimit.Fingerprint, now time.Time) ratelimit.StepStatus {
		t.Helper()
		st, err := s.Commit(ctx, "conv", step, token, f, params, now)
		if err != nil {
			t.Fatalf("Commit(step %d): %v", step, err)
		}
		return st
	}
	// run reserves and commits step with f and fails t unless both succeed.
	run := func(t *testing.T, s ratelimit.Store, step int64, f ratelimit.Fingerprint) {
		t.Helper()
		res := reserve(t, s, step, f, epoch)
		if res.Status != ratelimit.StepOK || res.Token == "" {
			t.Fatalf("Reserve(step %d) = %+v, want ok with a token", step, res)
		}
		if st := commit(t, s, step, res.Token, f, epoch); st != ratelimit.StepOK {
			t.Fatalf("Commit(step %d) = %v, want ok", step, st)
		}
	}

	t.Run("ReplayAfterCommit", func(t *testing.T) {
		s := newStore(t)
		run(t, s, 1, fp(1))
		run(t, s, 3, fp(2)) // steps may skip
		for _, step := range []int64{1, 2, 3} {
			if res := reserve(t, s, step, fp(9), epoch); res.Status != ratelimit.StepReplay || res.LastCommitted != 3 {
				t.Errorf("Reserve(step %d) after step 3 committed = %+v, want replay with LastCommitted 3", step, res)
			}
		}
		run(t, s, 4, fp(3))
	})
	t.Run("InFlightStepIsExclusive", func(t *testing.T) {
		s := newStore(t)
		first := reserve(t, s, 1, fp(1), epoch)
		if res := reserve(t, s, 1, fp(2), epoch); res.Status != ratelimit.StepInFlight {
			t.Fatalf("second Reserve(step 1) = %+v, want in-flight", res)
		}
		// Reservations are per step: step 2 can be decided at the same time.
		second := reserve(t, s, 2, fp(2), epoch)
		if second.Status != ratelimit.StepOK {
			t.Fatalf("Reserve(step 2) while step 1 is in flight = %+v, want ok", second)
		}
		if first.Token == second.Token {
			t.Fatal("two reservations share a token")
		}
		if st := commit(t, s, 2, second.Token, fp(2), epoch); st != ratelimit.StepOK {
			t.Fatalf("Commit(step 2) = %v", st)
		}
		// Step 1 was admitted before step 2 committed; it may still commit.
		if st := commit(t, s, 1, first.Token, fp(1), epoch); st != ratelimit.StepOK {
			t.Fatalf("Commit(step 1) after step 2 = %v, want ok", st)
		}
		if res := reserve(t, s, 3, fp(3), epoch); res.LastCommitted != 2 {
			t.Fatalf("LastCommitted = %d after committing 2 then 1, want 2", res.LastCommitted)
		}
	})
	t.Run("ReleaseAllowsRetry", func(t *testing.T) {
		s := newStore(t)
		res := reserve(t, s, 1, fp(1), epoch)
		if err := s.Release(ctx, "conv", 1, "not-the-token"); err != nil {
			t.Fatal(err)
		}
		if again := reserve(t, s, 1, fp(1), epoch); again.Status != ratelimit.StepInFlight {
			t.Fatalf("after Release with a wrong token: %+v, want still in flight", again)
		}
		if err := s.Release(ctx, "conv", 1, res.Token); err != nil {
			t.Fatal(err)
		}
		if err := s.Release(ctx, "conv", 1, res.Token); err != nil {
			t.Fatalf("second Release: %v, want nil", err)
		}
		if st := commit(t, s, 1, res.Token, fp(1), epoch); st != ratelimit.StepLost {
			t.Fatalf("Commit after Release = %v, want lost", st)
		}
		run(t, s, 1, fp(2))
	})
	t.Run("CommitNeedsTheToken", func(t *testing.T) {
		s := newStore(t)
		res := reserve(t, s, 1, fp(1), epoch)
		if st := commit(t, s, 1, res.Token+"x", fp(1), epoch); st != ratelimit.StepLost {
			t.Fatalf("Commit with a wrong token = %v, want lost", st)
		}
		if st := commit(t, s, 2, res.Token, fp(1), epoch); st != ratelimit.StepLost {
			t.Fatalf("Commit of an unreserved step = %v, want lost", st)
		}
		if st := commit(t, s, 1, res.Token, fp(1), epoch); st != ratelimit.StepOK {
			t.Fatalf("Commit with the token = %v, want ok", st)
		}
		// A second Commit with the token is a retry of the first (a network
		// store's client resends a command whose connection reset): it may
		// answer as the first did, but it commits nothing more.
		if st := commit(t, s, 1, res.Token, fp(1), epoch); st != ratelimit.StepLost && st != ratelimit.StepOK {
			t.Fatalf("second Commit = %v, want lost or ok", st)
		}
		if res, err := s.Reserve(ctx, "conv", 1, fp(1), params, epoch); err != nil || res.Status != ratelimit.StepReplay {
			t.Fatalf("Reserve of the committed step = %+v, %v; want a replay", res, err)
		}
		if st := commit(t, s, 2, res.Token, fp(1), epoch); st != ratelimit.StepLost {
			t.Fatalf("Commit of step 2 with step 1's token = %v, want lost", st)
		}
	})
	t.Run("ReservationExpires", func(t *testing.T) {
		s := newStore(t)
		res := reserve(t, s, 1, fp(1), epoch)
		later := epoch.Add(params.ReservationTTL)
		if st := commit(t, s, 1, res.Token, fp(1), later); st != ratelimit.StepLost {
			t.Fatalf("Commit at the TTL = %v, want lost", st)
		}
		res2, err := s.Reserve(ctx, "conv", 1, fp(1), params, later)
		if err != nil || res2.Status != ratelimit.StepOK {
			t.Fatalf("Reserve after the TTL = %+v, %v; want ok", res2, err)
		}
		if st := commit(t, s, 1, res.Token, fp(1), later); st != ratelimit.StepLost {
			t.Fatalf("Commit with the expired token after a new reservation = %v, want lost", st)
		}
	})
	t.Run("RepetitiveLoop", func(t *testing.T) {
		s := newStore(t)
		run(t, s, 1, fp(7))
		run(t, s, 2, fp(7))
		res := reserve(t, s, 3, fp(7), epoch)
		if res.Status != ratelimit.StepRepetitive || res.Repeats != 2 {
			t.Fatalf("third identical action = %+v, want repetitive after 2 repeats", res)
		}
		run(t, s, 3, fp(8)) // a different action resets the run
		run(t, s, 4, fp(7))
		run(t, s, 5, fp(7))
		if res := reserve(t, s, 6, fp(7), epoch); res.Status != ratelimit.StepRepetitive {
			t.Fatalf("after 8,7,7: %+v, want repetitive", res)
		}
	})
	t.Run("ConcurrentRepeatsCaughtAtCommit", func(t *testing.T) {
		s := newStore(t)
		run(t, s, 1, fp(7))
		a := reserve(t, s, 2, fp(7), epoch)
		b := reserve(t, s, 3, fp(7), epoch)
		if a.Status != ratelimit.StepOK || b.Status != ratelimit.StepOK {
			t.Fatalf("reservations %v, %v; want both ok (one repeat so far)", a.Status, b.Status)
		}
		if st := commit(t, s, 2, a.Token, fp(7), epoch); st != ratelimit.StepOK {
			t.Fatalf("first commit = %v", st)
		}
		if st := commit(t, s, 3, b.Token, fp(7), epoch); st != ratelimit.StepRepetitive {
			t.Fatalf("third identical commit = %v, want repetitive", st)
		}
		if res := reserve(t, s, 3, fp(8), epoch); res.Status != ratelimit.StepOK {
			t.Fatalf("step 3 after the repetitive commit = %+v, want ok (released)", res)
		}
	})
	t.Run("ScopesAreIndependent", func(t *testing.T) {
		s := newStore(t)
		for _, scope := range []string{"a", "b", "{a}"} {
			res, err := s.Reserve(ctx, scope, 1, fp(1), params, epoch)
			if err != nil || res.Status != ratelimit.StepOK {
				t.Fatalf("scope %q: %+v, %v", scope, res, err)
			}
		}
	})
	t.Run("InvalidInput", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Reserve(ctx, "", 1, fp(1), params, epoch); !errors.Is(err, ratelimit.ErrInvalidKey) {
			t.Errorf("empty scope: %v", err)
		}
		if _, err := s.Reserve(ctx, "conv", 0, fp(1), params, epoch); err == nil {
			t.Error("step 0 accepted")
		}
		if _, err := s.Reserve(ctx, "conv", 1, fp(1), ratelimit.StepParams{}, epoch); err == nil {
			t.Error("zero StepParams accepted")
		}
	})
	t.Run("RaceForOneStep", func(t *testing.T) {
		s := newStore(t)
		var won, inFlight atomic.Int64
		race(t, func(int) error {
			res, err := s.Reserve(ctx, "conv", 1, fp(1), params, epoch)
			if err != nil {
				return err
			}
			switch res.Status {
			case ratelimit.StepOK:
				won.Add(1)
			case ratelimit.StepInFlight:
				inFlight.Add(1)
			default:
				return errors.New("unexpected status " + res.Status.String())
			}
			return nil
		})
		if won.Load() != 1 || inFlight.Load() != Racers-1 {
			t.Fatalf("%d racers reserved step 1 and %d saw it in flight; want exactly 1 and %d", won.Load(), inFlight.Load(), Racers-1)
		}
	})
}
