package consent_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// TestNonceStoreBoundedPerAgent (fault 7): one agent that fills the shared
// nonce store with its own approvals is refused once it holds its share;
// other agents' approvals still go through, and the flooder's share frees
// up as its nonces expire.
func TestNonceStoreBoundedPerAgent(t *testing.T) {
	c := newClock()
	s, err := consent.NewMemoryNonceStore(&consent.MemoryNonceOptions{MaxNonces: 100, MaxPerScope: 10, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	until := c.Now().Add(time.Minute)
	for i := range 10 {
		if err := s.UseScoped(ctx, "flooder", fmt.Sprint("f", i), until); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.UseScoped(ctx, "flooder", "f10", until); !errors.Is(err, consent.ErrCapacity) {
		t.Fatalf("11th nonce of one agent: %v, want ErrCapacity", err)
	}
	for i := range 50 {
		if err := s.UseScoped(ctx, fmt.Sprint("agent-", i), "v"+fmt.Sprint(i), until); err != nil {
			t.Fatalf("agent %d refused after another agent's flood: %v", i, err)
		}
	}
	// Single use across scopes.
	if err := s.UseScoped(ctx, "agent-1", "f3", until); !errors.Is(err, consent.ErrReplayed) {
		t.Fatalf("another agent reusing a nonce: %v", err)
	}
	c.Advance(time.Minute + consent.NonceGrace + time.Second)
	if err := s.UseScoped(ctx, "flooder", "f11", c.Now().Add(time.Minute)); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
}

// TestAskRateBoundedPerAgent (fault 7): an agent that asks too often is
// refused without a human being asked; another agent is not affected.
func TestAskRateBoundedPerAgent(t *testing.T) {
	c := newClock()
	asked := 0
	ch := channelFunc(func(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
		asked++
		return consent.Reply{Decision: consent.Approved, Attestation: consent.AttestedHuman}, nil
	})
	asker, err := consent.NewAsker(ch, mustSigner(t, key(5)), memNonces(t, c), &consent.AskerOptions{MaxAsksPerAgent: 3, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(agent string) error {
		_, err := asker.Ask(context.Background(), consent.Request{Tool: "send_email", Args: map[string]any{"n": len(agent)}, Agent: consent.Agent{ID: agent}})
		return err
	}
	for range 3 {
		if err := ask("flooder"); err != nil {
			t.Fatal(err)
		}
	}
	if err := ask("flooder"); !errors.Is(err, consent.ErrCapacity) || asked != 3 {
		t.Fatalf("4th ask: %v (asked %d)", err, asked)
	}
	if err := ask("other"); err != nil {
		t.Fatalf("another agent: %v", err)
	}
	c.Advance(consent.DefaultAskWindow)
	if err := ask("flooder"); err != nil {
		t.Fatalf("next window: %v", err)
	}
}
