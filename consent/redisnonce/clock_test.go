package redisnonce_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// TestReplicaSkewCannotReplayANonce (fault 9): replica A's clock runs 70 s
// ahead (more than NonceGrace), replica B's is right. A approves a call and
// consumes its nonce; B must refuse the same proof for as long as B takes
// it for valid, so the nonce key must outlive valid_until on B's clock.
// With local clocks the key expired 10 s early; with Clock (Redis TIME) on
// both replicas everything is measured on one clock.
func TestReplicaSkewCannotReplayANonce(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	rdb := client(t, srv.Addr())
	skew := 70 * time.Second
	clockA, err := redisnonce.NewClock(ctx, rdb, func() time.Time { return time.Now().Add(skew) })
	if err != nil {
		t.Fatal(err)
	}
	clockB, err := redisnonce.NewClock(ctx, rdb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := clockA.Now().Sub(clockB.Now()); d > time.Second || d < -time.Second {
		t.Fatalf("replica clocks %v apart after syncing with Redis", d)
	}
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, _ := consent.NewSigner(priv)
	// A data epoch older than any approval, as on a Redis that has been
	// up a while. With the epoch New would write, the approval below is
	// younger than the marker only by the microseconds New and Ask take,
	// less than the two Clocks' estimation error under load, so the
	// lost-data check could refuse it (TestLostDataFailsClosed covers a
	// young epoch).
	if err := rdb.Set(ctx, "skew-marker", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	storeA, err := redisnonce.New(ctx, rdb, &redisnonce.Options{Prefix: "skew:", Now: clockA.Now})
	if err != nil {
		t.Fatal(err)
	}
	storeB, err := redisnonce.New(ctx, rdb, &redisnonce.Options{Prefix: "skew:", Now: clockB.Now})
	if err != nil {
		t.Fatal(err)
	}
	if storeA.MarkerKey() != "skew-marker" {
		t.Fatalf("marker key %q", storeA.MarkerKey())
	}

	// Replica A asks and approves: valid_until is A's now plus the TTL.
	asker, err := consent.NewAsker(approve{}, signer, storeA, &consent.AskerOptions{Now: clockA.Now})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := asker.Ask(ctx, consent.Request{Tool: "deploy", Args: map[string]any{"env": "prod"}, Agent: consent.Agent{ID: "a"}})
	if err != nil || !ans.Approved() {
		t.Fatalf("approval on A: %+v %v", ans, err)
	}
	resp := ans.Response
	ttl, err := rdb.PTTL(ctx, storeA.Key(resp.Nonce)).Result()
	if err != nil {
		t.Fatal(err)
	}
	// B takes the proof as valid until valid_until on B's clock.
	validOnB := resp.Conditions.ValidUntil.Sub(clockB.Now())
	if ttl < validOnB {
		t.Fatalf("nonce key lives %v, but replica B accepts the proof for %v more: a replay window", ttl, validOnB)
	}
	// And B refuses the replay now.
	if err := storeB.Use(ctx, resp.Nonce, resp.Conditions.ValidUntil); !errors.Is(err, consent.ErrReplayed) {
		t.Fatalf("replay on B: %v", err)
	}
}

type approve struct{}

func (approve) Name() string { return "test" }
func (approve) Ask(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
	return consent.Reply{Decision: consent.Approved, Attestation: consent.AttestedHuman}, nil
}
