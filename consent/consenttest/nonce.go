package consenttest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// TestNonceStore checks the [consent.NonceStore] contract: a nonce is used
// once, also when its until is past, also under concurrency; invalid nonces
// are refused. A store that is also a [consent.ScopedNonceStore] must keep
// nonces single-use across scopes and refuse a scope beyond its share
// (within 10,000 nonces) with ErrCapacity while other scopes still work.
// newStore returns a fresh, empty store for each subtest.
func TestNonceStore(t *testing.T, newStore func(t *testing.T) consent.NonceStore) {
	t.Helper()
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	if _, ok := newStore(t).(consent.ScopedNonceStore); ok {
		t.Run("Scoped", func(t *testing.T) { testScoped(t, newStore) })
	}

	t.Run("SingleUse", func(t *testing.T) {
		s := newStore(t)
		if err := s.Use(ctx, "n_a", until); err != nil {
			t.Fatalf("first Use = %v, want nil", err)
		}
		for i := range 3 {
			if err := s.Use(ctx, "n_a", until); !errors.Is(err, consent.ErrReplayed) {
				t.Fatalf("Use #%d = %v, want ErrReplayed", i+2, err)
			}
		}
		if err := s.Use(ctx, "n_b", until); err != nil {
			t.Fatalf("another nonce: %v, want nil", err)
		}
	})
	t.Run("PastUntilStillSingleUse", func(t *testing.T) {
		s := newStore(t)
		past := time.Now().Add(-time.Hour)
		if err := s.Use(ctx, "n_past", past); err != nil {
			t.Fatalf("first Use = %v, want nil", err)
		}
		if err := s.Use(ctx, "n_past", past); !errors.Is(err, consent.ErrReplayed) {
			t.Fatalf("second Use = %v, want ErrReplayed", err)
		}
	})
	t.Run("InvalidNonce", func(t *testing.T) {
		s := newStore(t)
		for _, n := range []string{"", strings.Repeat("x", consent.MaxNonceLen+1)} {
			if err := s.Use(ctx, n, until); !errors.Is(err, consent.ErrInvalidNonce) {
				t.Errorf("Use(%d bytes) = %v, want ErrInvalidNonce", len(n), err)
			}
		}
		if err := s.Use(ctx, strings.Repeat("x", consent.MaxNonceLen), until); err != nil {
			t.Errorf("Use(MaxNonceLen bytes) = %v, want nil", err)
		}
	})
	t.Run("ConcurrentUseHasOneWinner", func(t *testing.T) {
		s := newStore(t)
		const n = 32
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Use(ctx, "n_race", until)
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, consent.ErrReplayed):
				t.Errorf("Use = %v, want nil or ErrReplayed", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d goroutines used the nonce, want exactly 1", wins)
		}
	})
	t.Run("CancelledContextFails", func(t *testing.T) {
		s := newStore(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Use(cctx, "n_cancelled", until); err == nil {
			t.Fatal("Use with a cancelled context = nil, want an error")
		}
	})
}

func testScoped(t *testing.T, newStore func(t *testing.T) consent.NonceStore) {
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	s := newStore(t).(consent.ScopedNonceStore)
	if err := s.UseScoped(ctx, "agent-a", "n_s1", until); err != nil {
		t.Fatalf("UseScoped = %v, want nil", err)
	}
	for _, use := range []func() error{
		func() error { return s.UseScoped(ctx, "agent-b", "n_s1", until) },
		func() error { return s.Use(ctx, "n_s1", until) },
	} {
		if err := use(); !errors.Is(err, consent.ErrReplayed) {
			t.Fatalf("a nonce used in another scope: %v, want ErrReplayed", err)
		}
	}
	full := false
	for i := range 10_000 {
		err := s.UseScoped(ctx, "flooder", "n_f"+strconv.Itoa(i), until)
		if errors.Is(err, consent.ErrCapacity) {
			full = true
			break
		}
		if err != nil {
			t.Fatalf("UseScoped #%d = %v", i, err)
		}
	}
	if !full {
		t.Fatal("one scope used 10,000 nonces without reaching its share")
	}
	if err := s.UseScoped(ctx, "agent-c", "n_c1", until); err != nil {
		t.Fatalf("another scope after a flood: %v, want nil", err)
	}
}
