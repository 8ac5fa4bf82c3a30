package ratelimit_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// flood is the size of the flood tests (issue 17: 200k).
const flood = 200_000

func fixedClock(t *time.Time) func() time.Time { return func() time.Time { return *t } }

// TestConversationFloodOfOneAgent (issue 17 fault 2): one agent opens 200k
// conversations and commits a step in each. It exhausts only its own share
// (MaxConversationsPerOwner, refused with a capacity reason); a fresh agent
// still starts conversations.
func TestConversationFloodOfOneAgent(t *testing.T) {
	now := t0
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Now: fixedClock(&now)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	refused := 0
	for i := range flood {
		r, err := g.Begin(ctx, ratelimit.Action{Agent: "flooder", ConversationID: strconv.Itoa(i), Step: 1, Tool: "t"})
		if err != nil {
			var ce *ratelimit.CapacityError
			if !errors.As(err, &ce) || ce.Cap != "MemoryOptions.MaxConversationsPerOwner" || !strings.Contains(err.Error(), "raise the cap") {
				t.Fatalf("conversation %d: %v, want a CapacityError naming MaxConversationsPerOwner", i, err)
			}
			refused++
			continue
		}
		if err := r.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if refused != flood-10_000 {
		t.Errorf("%d of %d refused, want all past the default per-owner cap of 10,000", refused, flood)
	}
	for _, agent := range []string{"fresh", "another"} {
		r, err := g.Begin(ctx, ratelimit.Action{Agent: agent, ConversationID: "c", Step: 1, Tool: "t"})
		if err != nil {
			t.Fatalf("%s agent after the flood: %v", agent, err)
		}
		if err := r.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The flooder's committed steps are kept (never evicted): a replay of
	// one is still refused.
	if _, err := g.Begin(ctx, ratelimit.Action{Agent: "flooder", ConversationID: "7", Step: 1, Tool: "t"}); !errors.Is(err, ratelimit.ErrReplay) {
		t.Fatalf("replay of the flooder's step: %v, want ErrReplay", err)
	}
	// Past the conversation TTL the flooder's share is free again.
	now = now.Add(25 * time.Hour)
	if _, err := g.Begin(ctx, ratelimit.Action{Agent: "flooder", ConversationID: "new", Step: 1, Tool: "t"}); err != nil {
		t.Fatalf("flooder after its conversations expired: %v", err)
	}
}

// TestBudgetFloodOfDistinctAgents (issue 17 fault 2): 200k self-declared
// agents each spend one request of a 100/hour budget. A fresh agent is
// still served, and a victim that spent 99 keeps exactly one request left.
func TestBudgetFloodOfDistinctAgents(t *testing.T) {
	now := t0
	b, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 100}, &ratelimit.BudgetOptions{Now: fixedClock(&now)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 99 {
		if err := b.Charge(ctx, "victim", ratelimit.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range flood {
		if err := b.Charge(ctx, "agent-"+strconv.Itoa(i), ratelimit.Usage{}); err != nil {
			t.Fatalf("flood agent %d: %v", i, err)
		}
	}
	if err := b.Charge(ctx, "fresh", ratelimit.Usage{}); err != nil {
		t.Fatalf("fresh agent after the flood: %v", err)
	}
	if err := b.Charge(ctx, "victim", ratelimit.Usage{}); err != nil {
		t.Fatalf("victim's 100th request: %v", err)
	}
	if err := b.Charge(ctx, "victim", ratelimit.Usage{}); !errors.Is(err, ratelimit.ErrBudgetRequests) {
		t.Fatalf("victim's 101st request: %v, want ErrBudgetRequests (its near-limit budget was evicted)", err)
	}
}

// TestRateFloodOfDistinctAgents (issue 17 fault 2): 200k keys each take one
// token of 10/minute. A fresh key is served; a victim that spent 9 keeps one
// token, not a refilled bucket.
func TestRateFloodOfDistinctAgents(t *testing.T) {
	l, err := ratelimit.NewLimiter(ratelimit.MustParseRate("10/minute"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for range 9 {
		if res, err := l.AllowAt(ctx, "victim", t0); err != nil || !res.Allowed {
			t.Fatal(res, err)
		}
	}
	for i := range flood {
		// The key the root Guard builds for a per-tool rate of a
		// self-declared client.
		if res, err := l.AllowAt(ctx, ratelimit.Key("gatehouse", "rate", "client:agent-"+strconv.Itoa(i), "echo"), t0); err != nil || !res.Allowed {
			t.Fatalf("flood key %d: %+v, %v", i, res, err)
		}
	}
	if res, err := l.AllowAt(ctx, "fresh", t0); err != nil || !res.Allowed {
		t.Fatalf("fresh key after the flood: %+v, %v", res, err)
	}
	if res, err := l.AllowAt(ctx, "victim", t0); err != nil || !res.Allowed || res.Remaining != 0 {
		t.Fatalf("victim's 10th call: %+v, %v; want allowed with 0 left", res, err)
	}
	if res, err := l.AllowAt(ctx, "victim", t0); err != nil || res.Allowed {
		t.Fatalf("victim's 11th call: %+v, %v; want denied (a near-limit bucket was evicted)", res, err)
	}
}

// TestEvictionIsBoundedLoss: at the cap, only state that spent at most half
// of its limit is evicted; when all of it is past half, new keys and scopes
// are refused with a CapacityError naming the cap, never ErrUnavailable.
func TestEvictionIsBoundedLoss(t *testing.T) {
	store, err := ratelimit.NewMemoryStore(&ratelimit.MemoryOptions{MaxKeys: 64, MaxBudgetScopes: 64})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := ratelimit.MustParseRate("10/minute")
	c := func(add int64) []ratelimit.Counter {
		return []ratelimit.Counter{{Name: "n", Add: add, Max: 10, TTL: time.Hour}}
	}
	var rateErr, budErr error
	for i := 0; i < 10_000 && (rateErr == nil || budErr == nil); i++ {
		k := strconv.Itoa(i)
		for range 6 { // past half of 10
			if _, err := store.Take(ctx, k, r, t0); err != nil && rateErr == nil {
				rateErr = err
			}
		}
		if _, err := store.Spend(ctx, k, c(6), ratelimit.SpendCommit, t0); err != nil && budErr == nil {
			budErr = err
		}
	}
	for name, want := range map[string]struct {
		err error
		cap string
	}{"rate": {rateErr, "MemoryOptions.MaxKeys"}, "budget": {budErr, "MemoryOptions.MaxBudgetScopes"}} {
		var ce *ratelimit.CapacityError
		if !errors.As(want.err, &ce) || ce.Cap != want.cap || errors.Is(want.err, ratelimit.ErrUnavailable) {
			t.Errorf("%s at the cap: %v, want a CapacityError naming %s", name, want.err, want.cap)
		}
	}
	// Half a minute later every bucket holds 6 of 10 tokens again: past
	// half full, so evictable; a new key is served.
	if res, err := store.Take(ctx, "late", r, t0.Add(36*time.Second)); err != nil || !res.Allowed {
		t.Fatalf("new key once buckets refilled past half: %+v, %v", res, err)
	}
}

// TestHourlyBudgetEndsWithTheHour (issue 17 fault 2): an hourly-only budget
// keeps no counter past the hour (none for the unset daily limits), so a
// store full of hourly scopes takes new agents right after the hour, not
// at 00:00 UTC.
func TestHourlyBudgetEndsWithTheHour(t *testing.T) {
	store, err := ratelimit.NewMemoryStore(&ratelimit.MemoryOptions{MaxBudgetScopes: 64})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 10, 30, 0, 0, time.UTC)
	b, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 2}, &ratelimit.BudgetOptions{Store: store, Now: fixedClock(&now)})
	ctx := context.Background()
	var capErr error
	for i := 0; i < 10_000 && capErr == nil; i++ {
		for range 2 { // the whole hourly budget: never evictable
			if err := b.Charge(ctx, "agent-"+strconv.Itoa(i), ratelimit.Usage{}); err != nil {
				capErr = err
			}
		}
	}
	if !errors.Is(capErr, ratelimit.ErrCapacity) {
		t.Fatalf("filling the store: %v, want ErrCapacity", capErr)
	}
	now = time.Date(2026, 1, 2, 11, 0, 1, 0, time.UTC)
	if err := b.Charge(ctx, "new", ratelimit.Usage{}); err != nil {
		t.Fatalf("new agent just after the hour: %v", err)
	}
	// A budget with no windowed limit keeps no state at all.
	nb, _ := ratelimit.NewBudget(ratelimit.Limits{CostPerRequest: 1}, &ratelimit.BudgetOptions{Store: store, Now: fixedClock(&now)})
	_, before, _ := store.Len()
	if err := nb.Charge(ctx, "stateless", ratelimit.Usage{Cost: 0.5}); err != nil {
		t.Fatal(err)
	}
	if _, after, _ := store.Len(); after != before {
		t.Fatalf("budget without windowed limits added state: %d scopes, was %d", after, before)
	}
}

// TestConversationFloodOfDistinctAgents (issue 17 fault 2): 200k
// self-declared agents each commit a step in a conversation, past the
// global cap of 100,000. Fresh agents are still served; the conversations
// evicted to make room are refused at every step (never replayable), with
// CodeStateLost telling their owner to start a new conversation.
func TestConversationFloodOfDistinctAgents(t *testing.T) {
	now := t0
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Now: fixedClock(&now)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	commit := func(agent string, step int64) error {
		r, err := g.Begin(ctx, ratelimit.Action{Agent: agent, ConversationID: "c", Step: step, Tool: "t"})
		if err != nil {
			return err
		}
		return r.Commit(ctx)
	}
	if err := commit("victim", 1); err != nil {
		t.Fatal(err)
	}
	for i := range flood {
		now = now.Add(time.Millisecond) // each flood conversation newer than the last
		if err := commit("agent-"+strconv.Itoa(i), 1); err != nil {
			t.Fatalf("flood agent %d: %v", i, err)
		}
	}
	if err := commit("fresh", 1); err != nil {
		t.Fatalf("fresh agent after the flood: %v", err)
	}
	// The victim's conversation was the least recently active: evicted, and
	// refused at step 1 (a replay) and later steps alike.
	for _, step := range []int64{1, 2} {
		if err := commit("victim", step); !errors.Is(err, ratelimit.ErrStateLost) {
			t.Fatalf("victim's evicted conversation, step %d: %v, want ErrStateLost", step, err)
		}
	}
	if err := commit("agent-0", 1); !errors.Is(err, ratelimit.ErrStateLost) {
		t.Fatalf("replay of an evicted flood conversation: %v, want ErrStateLost", err)
	}
	// A recent conversation is still held: its replay is a plain replay.
	if err := commit("agent-199999", 1); !errors.Is(err, ratelimit.ErrReplay) {
		t.Fatalf("replay of a held conversation: %v, want ErrReplay", err)
	}
	if err := commit("victim-new", 1); err != nil {
		t.Fatalf("victim starting a new conversation: %v", err)
	}
}
