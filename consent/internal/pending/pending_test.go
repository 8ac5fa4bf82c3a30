package pending_test

import (
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/internal/pending"
)

// TestOneDecision: a request takes one decision; a refused one stays
// pending; a replay finds nothing.
func TestOneDecision(t *testing.T) {
	tab := pending.New[string](0)
	w, err := tab.Add("r1", "nonce")
	if err != nil {
		t.Fatal(err)
	}
	match := func(n string) func(*pending.Waiter[string]) bool {
		return func(w *pending.Waiter[string]) bool { return w.Data == n }
	}
	if found, taken := tab.Take("r1", match("other"), consent.Reply{Decision: consent.Approved}); !found || taken {
		t.Fatalf("wrong nonce: found %v taken %v, want true false", found, taken)
	}
	if found, taken := tab.Take("r1", match("nonce"), consent.Reply{Decision: consent.Denied}); !found || !taken {
		t.Fatalf("right nonce: found %v taken %v", found, taken)
	}
	if r := <-w.Reply(); r.Decision != consent.Denied {
		t.Fatalf("delivered %v", r.Decision)
	}
	if found, _ := tab.Take("r1", nil, consent.Reply{Decision: consent.Approved}); found {
		t.Fatal("a replayed decision found the request again")
	}
}

// TestBoundsAndCleanup: Max, duplicates, and Remove of a stale waiter.
func TestBoundsAndCleanup(t *testing.T) {
	tab := pending.New[int](2)
	a, _ := tab.Add("a", 1)
	if _, err := tab.Add("a", 2); !errors.Is(err, pending.ErrDuplicate) {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := tab.Add("b", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Add("c", 3); !errors.Is(err, pending.ErrFull) {
		t.Fatalf("beyond max: %v", err)
	}
	tab.Remove("a", a)
	a2, err := tab.Add("a", 4)
	if err != nil {
		t.Fatal(err)
	}
	tab.Remove("a", a) // the old waiter: must not remove the new one
	if tab.Do("a", nil) != a2 {
		t.Fatal("Remove of a stale waiter removed the new one")
	}
}
