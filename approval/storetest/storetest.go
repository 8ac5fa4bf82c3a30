// Package storetest is the conformance kit for [approval.ChallengeStore] and
// [approval.CredentialStore] implementations, run by this module against the
// memory, file and Redis stores; run it against your own:
//
//	func TestMyStore(t *testing.T) {
//		storetest.TestChallengeStore(t, func(t *testing.T) approval.ChallengeStore { return newMyStore(t) })
//	}
//
// [TestGate] drives a real [approval.Gate] over the stores with the
// approvaltest authenticator, including 1,000 concurrent submissions of one
// valid evidence (exactly one must verify).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
)

var t0 = time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)

func challenge(id string, exp time.Time) *approval.Challenge {
	return &approval.Challenge{
		ID: id, Kind: approval.KindApproval, UserHandle: []byte("user-1"), Tool: "delete_resource",
		Definition: "definition-1", ActionHash: [32]byte{1, 2, 3}, Bytes: make([]byte, 64), ExpiresAt: exp,
	}
}

// TestChallengeStore checks the ChallengeStore contract. newStore returns
// an empty store for each subtest.
func TestChallengeStore(t *testing.T, newStore func(t *testing.T) approval.ChallengeStore) {
	ctx := context.Background()
	exp := t0.Add(time.Minute)

	t.Run("PutGet", func(t *testing.T) {
		s := newStore(t)
		in := challenge("c1", exp)
		in.Bytes[0], in.Bytes[63] = 9, 8
		if err := s.Put(ctx, in, t0); err != nil {
			t.Fatal(err)
		}
		in.UserHandle[0] = 'X' // the store must have copied
		got, err := s.Get(ctx, "c1", t0)
		if err != nil {
			t.Fatal(err)
		}
		want := challenge("c1", exp)
		want.Bytes[0], want.Bytes[63] = 9, 8
		if err := sameChallenge(got, want); err != nil {
			t.Fatal(err)
		}
		if got.Consumed {
			t.Fatal("new challenge reads as consumed")
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, "nope", t0); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("Get unknown: %v", err)
		}
		if err := s.Consume(ctx, "nope", t0); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("Consume unknown: %v", err)
		}
	})
	t.Run("Duplicate", func(t *testing.T) {
		s := newStore(t)
		_ = s.Put(ctx, challenge("c1", exp), t0)
		if err := s.Put(ctx, challenge("c1", exp), t0); !errors.Is(err, approval.ErrDuplicate) {
			t.Fatalf("second Put: %v", err)
		}
	})
	t.Run("ConsumeOnce", func(t *testing.T) {
		s := newStore(t)
		_ = s.Put(ctx, challenge("c1", exp), t0)
		if err := s.Consume(ctx, "c1", t0); err != nil {
			t.Fatal(err)
		}
		if err := s.Consume(ctx, "c1", t0); !errors.Is(err, approval.ErrConsumed) {
			t.Fatalf("second Consume: %v", err)
		}
		// Consumed, not unknown, until it expires.
		got, err := s.Get(ctx, "c1", exp.Add(-time.Millisecond))
		if err != nil || !got.Consumed {
			t.Fatalf("Get after Consume: %+v, %v", got, err)
		}
	})
	t.Run("ConsumeExpired", func(t *testing.T) {
		s := newStore(t)
		_ = s.Put(ctx, challenge("c1", exp), t0)
		if err := s.Consume(ctx, "c1", exp); !errors.Is(err, approval.ErrExpired) {
			t.Fatalf("Consume at expiresAt: %v", err)
		}
		if got, err := s.Get(ctx, "c1", exp); err != nil || got.Consumed {
			t.Fatalf("expired challenge: %+v, %v (want it still readable, not consumed)", got, err)
		}
	})
	t.Run("ConcurrentConsume", func(t *testing.T) {
		s := newStore(t)
		_ = s.Put(ctx, challenge("c1", exp), t0)
		var wins, consumed atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 1000; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch err := s.Consume(ctx, "c1", t0); {
				case err == nil:
					wins.Add(1)
				case errors.Is(err, approval.ErrConsumed):
					consumed.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 || consumed.Load() != 999 {
			t.Fatalf("%d winners and %d consumed of 1000", wins.Load(), consumed.Load())
		}
	})
	t.Run("ManyChallenges", func(t *testing.T) {
		s := newStore(t)
		for i := 0; i < 200; i++ {
			c := challenge(fmt.Sprint("c", i), exp)
			c.UserHandle = []byte(fmt.Sprint("user-", i%10)) // 20 each, below any per-user cap
			if err := s.Put(ctx, c, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Consume(ctx, "c7", t0); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Get(ctx, "c8", t0); got == nil || got.Consumed {
			t.Fatal("consuming one challenge touched another")
		}
	})
}

// TestChallengeStoreUserCap checks a store's cap on the pending
// challenges of one user: newStore returns an empty store that allows
// perUser pending challenges per user handle. A user at the cap is refused
// with ErrCapacity while other users are not, and consuming or expiring one
// of the user's challenges makes room again.
func TestChallengeStoreUserCap(t *testing.T, newStore func(t *testing.T) approval.ChallengeStore, perUser int) {
	ctx := context.Background()
	exp := t0.Add(time.Minute)
	put := func(s approval.ChallengeStore, user, id string, exp, now time.Time) error {
		c := challenge(id, exp)
		c.UserHandle = []byte(user)
		return s.Put(ctx, c, now)
	}
	fill := func(t *testing.T, s approval.ChallengeStore) {
		t.Helper()
		for i := 0; i < perUser; i++ {
			if err := put(s, "alice", fmt.Sprint("a", i), exp, t0); err != nil {
				t.Fatalf("Put %d of %d: %v", i+1, perUser, err)
			}
		}
		if err := put(s, "alice", "a-over", exp, t0); !errors.Is(err, approval.ErrCapacity) {
			t.Fatalf("Put beyond the per-user cap: %v, want ErrCapacity", err)
		}
	}
	t.Run("OtherUsersUnaffected", func(t *testing.T) {
		s := newStore(t)
		fill(t, s)
		if err := put(s, "bob", "b0", exp, t0); err != nil {
			t.Fatalf("bob refused while alice is at her cap: %v", err)
		}
		// The cap is on the user handle's bytes, not a case-folded form.
		if err := put(s, "Alice", "A0", exp, t0); err != nil {
			t.Fatalf("Alice refused while alice is at her cap: %v", err)
		}
		// The refused Put stored nothing.
		if _, err := s.Get(ctx, "a-over", t0); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("refused challenge is stored: %v", err)
		}
	})
	t.Run("ConsumeMakesRoom", func(t *testing.T) {
		s := newStore(t)
		fill(t, s)
		if err := s.Consume(ctx, "a0", t0); err != nil {
			t.Fatal(err)
		}
		if err := put(s, "alice", "a-next", exp, t0); err != nil {
			t.Fatalf("Put after consuming one: %v", err)
		}
		if err := put(s, "alice", "a-over2", exp, t0); !errors.Is(err, approval.ErrCapacity) {
			t.Fatalf("Put beyond the cap again: %v, want ErrCapacity", err)
		}
		// A consumed challenge still reports consumed.
		if err := s.Consume(ctx, "a0", t0); !errors.Is(err, approval.ErrConsumed) {
			t.Fatalf("Consume of the consumed challenge: %v", err)
		}
	})
	t.Run("ExpiryMakesRoom", func(t *testing.T) {
		s := newStore(t)
		fill(t, s)
		later := exp.Add(time.Second) // expired, still within any retention
		if err := put(s, "alice", "a-later", later.Add(time.Minute), later); err != nil {
			t.Fatalf("Put after the others expired: %v", err)
		}
		if err := s.Consume(ctx, "a1", later); !errors.Is(err, approval.ErrExpired) {
			t.Fatalf("Consume of an expired challenge: %v, want ErrExpired", err)
		}
	})
}

// Race runs f(0) … f(n-1) at once and counts the calls that returned nil
// (wins) and those that returned an error wrapping refusal (refused); any
// other error fails the test.
func Race(t testing.TB, n int, refusal error, f func(i int) error) (wins, refused int) {
	t.Helper()
	var w, r atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			switch err := f(i); {
			case err == nil:
				w.Add(1)
			case errors.Is(err, refusal):
				r.Add(1)
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	return int(w.Load()), int(r.Load())
}

func sameChallenge(got, want *approval.Challenge) error {
	if got.ID != want.ID || got.Kind != want.Kind || string(got.UserHandle) != string(want.UserHandle) ||
		got.Tool != want.Tool || got.Definition != want.Definition || got.ActionHash != want.ActionHash || string(got.Bytes) != string(want.Bytes) ||
		!got.ExpiresAt.Equal(want.ExpiresAt) {
		return fmt.Errorf("got %+v, want %+v", got, want)
	}
	return nil
}

func credential(user, id string, count uint32) *approval.Credential {
	return &approval.Credential{
		ID: []byte(id), UserHandle: []byte(user), PublicKey: []byte("cose-key-" + id), SignCount: count,
		Transports: []string{"usb", "nfc"}, AttestationFormat: "packed", AAGUID: make([]byte, 16),
		UserVerified: true, BackupEligible: true, CreatedAt: t0,
	}
}

// TestCredentialStore checks the CredentialStore contract. newStore returns
// an empty store for each subtest.
func TestCredentialStore(t *testing.T, newStore func(t *testing.T) approval.CredentialStore) {
	ctx := context.Background()
	t.Run("AddGetList", func(t *testing.T) {
		s := newStore(t)
		if l, err := s.List(ctx, []byte("alice")); err != nil || len(l) != 0 {
			t.Fatalf("empty List: %v, %v", l, err)
		}
		for _, id := range []string{"k1", "k2"} {
			if err := s.Add(ctx, credential("alice", id, 1)); err != nil {
				t.Fatal(err)
			}
		}
		l, err := s.List(ctx, []byte("alice"))
		if err != nil || len(l) != 2 || string(l[0].ID) != "k1" || string(l[1].ID) != "k2" {
			t.Fatalf("List: %+v, %v", l, err)
		}
		l[0].Transports[0] = "mutated"
		got, err := s.Get(ctx, []byte("alice"), []byte("k1"))
		if err != nil {
			t.Fatal(err)
		}
		want := credential("alice", "k1", 1)
		if string(got.PublicKey) != string(want.PublicKey) || got.SignCount != 1 || got.Transports[0] != "usb" ||
			len(got.Transports) != 2 || got.AttestationFormat != "packed" || !got.UserVerified || !got.BackupEligible ||
			!got.CreatedAt.Equal(t0) || len(got.AAGUID) != 16 {
			t.Fatalf("Get: %+v", got)
		}
	})
	t.Run("PerUser", func(t *testing.T) {
		s := newStore(t)
		_ = s.Add(ctx, credential("alice", "k1", 1))
		if _, err := s.Get(ctx, []byte("bob"), []byte("k1")); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("bob reads alice's credential: %v", err)
		}
		if l, _ := s.List(ctx, []byte("bob")); len(l) != 0 {
			t.Fatal("bob lists alice's credential")
		}
		if err := s.UpdateCounter(ctx, []byte("bob"), []byte("k1"), 9); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("bob updates alice's counter: %v", err)
		}
	})
	t.Run("DuplicateID", func(t *testing.T) {
		s := newStore(t)
		_ = s.Add(ctx, credential("alice", "k1", 1))
		for _, user := range []string{"alice", "bob"} {
			if err := s.Add(ctx, credential(user, "k1", 1)); !errors.Is(err, approval.ErrDuplicate) {
				t.Fatalf("%s re-adds k1: %v", user, err)
			}
		}
	})
	t.Run("UpdateCounter", func(t *testing.T) {
		for _, c := range []struct {
			stored, count uint32
			ok            bool
		}{{0, 0, true}, {0, 5, true}, {5, 6, true}, {5, 5, false}, {5, 4, false}, {5, 0, false}} {
			s := newStore(t)
			_ = s.Add(ctx, credential("alice", "k1", c.stored))
			err := s.UpdateCounter(ctx, []byte("alice"), []byte("k1"), c.count)
			if c.ok != (err == nil) || (!c.ok && !errors.Is(err, approval.ErrCounterNotAdvanced)) {
				t.Fatalf("stored %d, update %d: %v", c.stored, c.count, err)
			}
			got, _ := s.Get(ctx, []byte("alice"), []byte("k1"))
			want := c.stored
			if c.ok {
				want = c.count
			}
			if got.SignCount != want {
				t.Fatalf("stored %d, update %d: now %d", c.stored, c.count, got.SignCount)
			}
		}
		s := newStore(t)
		if err := s.UpdateCounter(ctx, []byte("alice"), []byte("nope"), 1); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("unknown credential: %v", err)
		}
	})
	t.Run("ConcurrentUpdateCounter", func(t *testing.T) {
		s := newStore(t)
		_ = s.Add(ctx, credential("alice", "k1", 1))
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 200; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.UpdateCounter(ctx, []byte("alice"), []byte("k1"), 7) == nil {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d of 200 identical counter updates succeeded, want 1", wins.Load())
		}
	})
	t.Run("AddFirst", func(t *testing.T) {
		s, ok := newStore(t).(approval.FirstCredentialAdder)
		if !ok {
			t.Log("the store does not implement approval.FirstCredentialAdder; nothing to check")
			return
		}
		cs := s.(approval.CredentialStore)
		if err := s.AddFirst(ctx, credential("alice", "k1", 0)); err != nil {
			t.Fatalf("first credential: %v", err)
		}
		if err := s.AddFirst(ctx, credential("alice", "k2", 0)); !errors.Is(err, approval.ErrHasCredentials) {
			t.Fatalf("second credential through AddFirst: %v, want ErrHasCredentials", err)
		}
		if err := s.AddFirst(ctx, credential("bob", "k1", 0)); !errors.Is(err, approval.ErrDuplicate) {
			t.Fatalf("another user's credential ID: %v, want ErrDuplicate", err)
		}
		if l, _ := cs.List(ctx, []byte("alice")); len(l) != 1 {
			t.Fatalf("alice has %d credentials after refused adds", len(l))
		}
		if l, _ := cs.List(ctx, []byte("bob")); len(l) != 0 {
			t.Fatalf("bob has %d credentials after a refused add", len(l))
		}
		// Add is not restricted.
		if err := cs.Add(ctx, credential("alice", "k3", 0)); err != nil {
			t.Fatalf("Add of a second credential: %v", err)
		}
	})
	t.Run("ConcurrentAddFirst", func(t *testing.T) {
		s, ok := newStore(t).(approval.FirstCredentialAdder)
		if !ok {
			t.Log("the store does not implement approval.FirstCredentialAdder; nothing to check")
			return
		}
		wins, refused := Race(t, 50, approval.ErrHasCredentials, func(i int) error {
			return s.AddFirst(ctx, credential("carol", fmt.Sprint("c", i), 0))
		})
		if wins != 1 || refused != 49 {
			t.Fatalf("%d of 50 concurrent first credentials landed (%d refused), want 1", wins, refused)
		}
	})
}
