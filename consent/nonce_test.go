package consent_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
)

func TestMemoryNonceStore(t *testing.T) {
	consenttest.TestNonceStore(t, func(t *testing.T) consent.NonceStore { return memNonces(t, nil) })
}

func TestMemoryNonceStoreReapsExpired(t *testing.T) {
	c := newClock()
	s := memNonces(t, c)
	ctx := context.Background()
	for i := range 100 {
		if err := s.Use(ctx, fmt.Sprintf("n_%d", i), c.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	// Still remembered through valid_until + grace.
	c.Advance(time.Minute + consent.NonceGrace - time.Millisecond)
	if err := s.Use(ctx, "n_7", c.Now()); !errors.Is(err, consent.ErrReplayed) {
		t.Fatalf("within grace: %v, want ErrReplayed", err)
	}
	c.Advance(time.Second)
	if err := s.Use(ctx, "n_fresh", c.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := s.Len(); n != 1 {
		t.Fatalf("Len after expiry and a sweep = %d, want 1", n)
	}
}

func TestMemoryNonceStoreCapacity(t *testing.T) {
	c := newClock()
	s, err := consent.NewMemoryNonceStore(&consent.MemoryNonceOptions{MaxNonces: 3, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3 {
		if err := s.Use(ctx, fmt.Sprintf("n_%d", i), c.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Use(ctx, "n_3", c.Now().Add(time.Minute)); !errors.Is(err, consent.ErrCapacity) {
		t.Fatalf("full store: %v, want ErrCapacity", err)
	}
	// A replay is still detected when full.
	if err := s.Use(ctx, "n_0", c.Now().Add(time.Minute)); !errors.Is(err, consent.ErrReplayed) {
		t.Fatalf("replay in a full store: %v, want ErrReplayed", err)
	}
	c.Advance(time.Minute + consent.NonceGrace)
	if err := s.Use(ctx, "n_3", c.Now().Add(time.Minute)); err != nil {
		t.Fatalf("after expiry: %v, want room", err)
	}
	if _, err := consent.NewMemoryNonceStore(&consent.MemoryNonceOptions{MaxNonces: -1}); !errors.Is(err, consent.ErrInvalidOptions) {
		t.Fatalf("MaxNonces -1: %v", err)
	}
}
