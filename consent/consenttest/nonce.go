package consenttest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// TestNonceStore checks the [consent.NonceStore] contract: a nonce is used
// once, also when its until is past, also under concurrency; invalid nonces
// are refused. newStore returns a fresh, empty store for each subtest.
func TestNonceStore(t *testing.T, newStore func(t *testing.T) consent.NonceStore) {
	t.Helper()
	ctx := context.Background()
	until := time.Now().Add(time.Minute)

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
