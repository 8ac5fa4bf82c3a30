package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// TestGate runs a Gate over the stores newStores returns (fresh ones per
// subtest): enrollment survives into a second Gate sharing the stores (a
// second replica), a replay is refused, and of 1,000 concurrent
// submissions of one valid evidence exactly one runs the tool.
func TestGate(t *testing.T, newStores func(t *testing.T) (approval.ChallengeStore, approval.CredentialStore)) {
	ctx := context.Background()
	newGate := func(t *testing.T, ch approval.ChallengeStore, cr approval.CredentialStore) *approval.Gate {
		g, err := approval.New(approval.Config{ServerID: "urn:uuid:2d7f0d2e-storetest", RPID: "gatehouse.test", Origins: []string{"https://gatehouse.test"}},
			&approval.Options{Challenges: ch, Credentials: cr, Now: func() time.Time { return t0 }})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Require("delete_resource", approval.ToolPolicy{}); err != nil {
			t.Fatal(err)
		}
		return g
	}
	user := approval.NewUser("agent-storetest")
	args := json.RawMessage(`{"resourceId":"abc123"}`)

	setup := func(t *testing.T) (a, b *approval.Gate, ev json.RawMessage) {
		ch, cr := newStores(t)
		a, b = newGate(t, ch, cr), newGate(t, ch, cr)
		auth := approvaltest.New("https://gatehouse.test", nil)
		begin, err := a.BeginEnrollment(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := auth.Create(ctx, begin.Options)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.FinishEnrollment(ctx, user, reg); err != nil { // finish on the other replica
			t.Fatal(err)
		}
		c, err := a.CreateChallenge(ctx, user, "delete_resource", args)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := auth.Get(ctx, c.DisplayText, c.RequestOptions)
		if err != nil {
			t.Fatal(err)
		}
		ev, _ = json.Marshal(approval.Evidence{Method: "webauthn", ChallengeID: c.ChallengeID, Response: resp})
		return a, b, ev
	}
	call := func(ev json.RawMessage) approval.Call {
		return approval.Call{Tool: "delete_resource", Arguments: args, Evidence: ev}
	}

	t.Run("ApproveAcrossReplicasThenReplay", func(t *testing.T) {
		a, b, ev := setup(t)
		if _, err := b.Verify(ctx, user, call(ev)); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Verify(ctx, user, call(ev)); !errors.Is(err, approval.ErrChallengeConsumed) {
			t.Fatalf("replay on the other replica: %v", err)
		}
	})
	t.Run("ConcurrentSubmissions", func(t *testing.T) {
		a, b, ev := setup(t)
		var runs, consumed atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 1000; i++ {
			g := a
			if i%2 == 1 {
				g = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := g.Verify(ctx, user, call(ev))
				switch {
				case err == nil:
					runs.Add(1) // the tool runs here
				case errors.Is(err, approval.ErrChallengeConsumed),
					// A submission that read the challenge before the
					// winner consumed it, and the credential after the
					// winner stored its counter, fails step 11 instead.
					errors.Is(err, approval.ErrCounterRegression):
					consumed.Add(1)
				default:
					t.Errorf("unexpected denial: %v", err)
				}
			}()
		}
		wg.Wait()
		if runs.Load() != 1 || consumed.Load() != 999 {
			t.Fatalf("%d tool executions and %d challenge_consumed of 1000, want 1 and 999 (challenge_consumed or signature_counter_regression)", runs.Load(), consumed.Load())
		}
	})
}
