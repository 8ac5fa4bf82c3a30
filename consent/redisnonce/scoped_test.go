package redisnonce_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestUseScopedBoundedPerAgent (fault 7, Redis): one agent filling the
// shared store with its approvals is refused at its share; another agent
// is not; a nonce stays single-use across agents; the share frees as the
// agent's nonces expire.
func TestUseScopedBoundedPerAgent(t *testing.T) {
	srv := redistest.Start(t)
	rdb := client(t, srv.Addr())
	now := time.Now()
	s, err := redisnonce.New(context.Background(), rdb, &redisnonce.Options{Prefix: "sc:", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	until := now.Add(time.Minute)
	for i := range redisnonce.DefaultMaxPerScope {
		if err := s.UseScoped(ctx, "flooder", fmt.Sprint("f", i), until); err != nil {
			t.Fatal(i, err)
		}
	}
	if err := s.UseScoped(ctx, "flooder", "f-extra", until); !errors.Is(err, consent.ErrCapacity) {
		t.Fatalf("beyond the share: %v, want ErrCapacity", err)
	}
	if err := s.UseScoped(ctx, "other", "o1", until); err != nil {
		t.Fatalf("another agent: %v", err)
	}
	if err := s.UseScoped(ctx, "other", "f7", until); !errors.Is(err, consent.ErrReplayed) {
		t.Fatalf("a nonce used by another agent: %v, want ErrReplayed", err)
	}
	if k := s.ScopeKey("flooder"); k != "sc-scope:flooder" {
		t.Fatalf("scope key %q", k)
	}
	now = now.Add(time.Minute + consent.NonceGrace + time.Second) // the flooder's nonces are forgotten
	if err := s.UseScoped(ctx, "flooder", "f-later", now.Add(time.Minute)); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
}
