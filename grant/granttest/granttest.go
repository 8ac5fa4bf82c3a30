// Package granttest checks a [grant.Store] against the contract: exact
// use counts under concurrency (also across two handles of one shared
// store, as two replicas), expiry at the caller's clock, each expiry
// returned once, binding to principal, exact tool name, digest, session
// and arguments, the per-principal cap, List and Revoke.
package granttest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/grant"
)

// T0 is the clock the kit starts at.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Digest is the definition digest of the kit's grants.
const Digest = "sha256:def-1"

// NewGrant returns a grant of scope s for principal p on tool "deploy"
// with {"env":"staging"}, made at now.
func NewGrant(t testing.TB, p string, s grant.Scope, now time.Time) grant.Grant {
	t.Helper()
	g, err := grant.New(s, grant.Binding{Principal: p, Tool: "deploy", Digest: Digest, Session: "sess-1"},
		map[string]string{"env": `"staging"`}, nil, grant.AttestedHuman, now)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Query is the call NewGrant's grants cover.
func Query(p string) grant.Query {
	return grant.Query{Principal: p, Tool: "deploy", Digest: Digest, Session: "sess-1", Args: map[string]string{"env": `"staging"`}}
}

// TestStore runs the contract. newStores returns two handles on one fresh,
// empty store (for a memory store, the same one twice) whose cap per
// principal is maxPerPrincipal.
func TestStore(t *testing.T, maxPerPrincipal int, newStores func(t *testing.T) (a, b grant.Store)) {
	t.Run("ExactUses", func(t *testing.T) { testExactUses(t, newStores) })
	t.Run("ConcurrentUsesAcrossHandles", func(t *testing.T) { testConcurrent(t, newStores) })
	t.Run("Expiry", func(t *testing.T) { testExpiry(t, newStores) })
	t.Run("Binding", func(t *testing.T) { testBinding(t, newStores) })
	t.Run("Cap", func(t *testing.T) { testCap(t, maxPerPrincipal, newStores) })
	t.Run("ListRevoke", func(t *testing.T) { testListRevoke(t, newStores) })
	t.Run("Order", func(t *testing.T) { testOrder(t, newStores) })
	t.Run("Refund", func(t *testing.T) { testRefund(t, newStores) })
	t.Run("CreateAgain", func(t *testing.T) { testCreateAgain(t, newStores) })
}

// testCreateAgain: a Create of a grant already stored (a Create sent
// twice, as go-redis resends one whose connection reset) changes nothing:
// the uses taken in between stay taken (red team rtp).
func testCreateAgain(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	g := NewGrant(t, "user:alice", three, T0)
	create(t, a, g, T0)
	if u, err := b.Consume(ctx, Query("user:alice"), T0); err != nil || u.Grant.Left != 2 {
		t.Fatalf("first use: %+v %v", u, err)
	}
	create(t, b, g, T0)
	for want := 1; want >= 0; want-- {
		if u, err := a.Consume(ctx, Query("user:alice"), T0); err != nil || u.Grant.Left != want {
			t.Fatalf("use with %d to be left after the grant was created again: %+v %v", want, u, err)
		}
	}
	if _, err := a.Consume(ctx, Query("user:alice"), T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a fourth use of a grant of three created twice: %v, want ErrNoGrant", err)
	}
	// Spent, it is not made new either.
	create(t, b, g, T0)
	if _, err := a.Consume(ctx, Query("user:alice"), T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a use of a spent grant created again: %v, want ErrNoGrant", err)
	}
}

var three = grant.Scope{ID: "15m-3", Duration: 15 * time.Minute, Uses: 3}

func create(t *testing.T, s grant.Store, g grant.Grant, now time.Time) {
	t.Helper()
	if _, err := s.Create(context.Background(), g, now); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

func testExactUses(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	g := NewGrant(t, "user:alice", three, T0)
	create(t, a, g, T0)
	for i, s := range []grant.Store{a, b, a} {
		u, err := s.Consume(ctx, Query("user:alice"), T0.Add(time.Minute))
		if err != nil || u.Grant.ID != g.ID || u.Grant.Left != 2-i {
			t.Fatalf("use %d: %+v, %v; want grant %s with %d left", i+1, u.Grant, err, g.ID, 2-i)
		}
	}
	if _, err := b.Consume(ctx, Query("user:alice"), T0.Add(time.Minute)); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("fourth use: %v, want ErrNoGrant", err)
	}
	if live, _, _ := a.List(ctx, "user:alice", T0); len(live) != 0 {
		t.Fatalf("a spent grant is still listed: %+v", live)
	}
}

func testConcurrent(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	create(t, a, NewGrant(t, "user:alice", three, T0), T0)
	var wins, fails atomic.Int32
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			_, err := s.Consume(ctx, Query("user:alice"), T0.Add(time.Second))
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, grant.ErrNoGrant):
				fails.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 3 || fails.Load() != 0 {
		t.Fatalf("100 concurrent uses of a 3-use grant: %d went through, %d errors; want exactly 3 and none", wins.Load(), fails.Load())
	}
}

func testExpiry(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	g := NewGrant(t, "user:alice", grant.Scope{ID: "1m", Duration: time.Minute}, T0)
	create(t, a, g, T0)
	for i := range 5 { // unlimited uses within the lifetime
		if u, err := a.Consume(ctx, Query("user:alice"), T0.Add(59*time.Second)); err != nil || u.Grant.Left != -1 {
			t.Fatalf("use %d before expiry: %+v, %v", i, u.Grant, err)
		}
	}
	u, err := b.Consume(ctx, Query("user:alice"), T0.Add(time.Minute))
	if !errors.Is(err, grant.ErrNoGrant) || len(u.Expired) != 1 || u.Expired[0].ID != g.ID {
		t.Fatalf("use at expiry: %v, expired %+v; want ErrNoGrant and the grant reported expired", err, u.Expired)
	}
	u, err = a.Consume(ctx, Query("user:alice"), T0.Add(time.Hour))
	if !errors.Is(err, grant.ErrNoGrant) || len(u.Expired) != 0 {
		t.Fatalf("after the expiry was reported: %v, expired %+v; want it reported once", err, u.Expired)
	}
	// Expired grants of a principal are reported by List too.
	g2 := NewGrant(t, "user:bob", grant.Scope{ID: "1m", Duration: time.Minute}, T0)
	create(t, a, g2, T0)
	live, expired, err := b.List(ctx, "user:bob", T0.Add(2*time.Minute))
	if err != nil || len(live) != 0 || len(expired) != 1 || expired[0].ID != g2.ID {
		t.Fatalf("List after expiry: %+v, %+v, %v", live, expired, err)
	}
}

func testBinding(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, _ := newStores(t)
	create(t, a, NewGrant(t, "user:alice", grant.Scope{ID: "s", Duration: time.Hour, Session: true}, T0), T0)
	misses := map[string]func(q *grant.Query){
		"another principal":          func(q *grant.Query) { q.Principal = "user:bob" },
		"principal in another case":  func(q *grant.Query) { q.Principal = "user:Alice" },
		"another tool spelling":      func(q *grant.Query) { q.Tool = "Deploy" },
		"tool with a zero-width":     func(q *grant.Query) { q.Tool = "deploy\u200b" },
		"changed definition":         func(q *grant.Query) { q.Digest = "sha256:def-2" },
		"another session":            func(q *grant.Query) { q.Session = "sess-2" },
		"no session":                 func(q *grant.Query) { q.Session = "" },
		"another value":              func(q *grant.Query) { q.Args = map[string]string{"env": `"production"`} },
		"an extra argument":          func(q *grant.Query) { q.Args = map[string]string{"env": `"staging"`, "force": "true"} },
		"no arguments":               func(q *grant.Query) { q.Args = map[string]string{} },
		"value as a number not text": func(q *grant.Query) { q.Args = map[string]string{"env": `["staging"]`} },
	}
	for name, change := range misses {
		q := Query("user:alice")
		change(&q)
		if u, err := a.Consume(ctx, q, T0); !errors.Is(err, grant.ErrNoGrant) {
			t.Errorf("%s: %+v, %v; want ErrNoGrant", name, u.Grant, err)
		}
	}
	if _, err := a.Consume(ctx, Query("user:alice"), T0); err != nil {
		t.Errorf("the covered call after the near misses: %v", err)
	}
	// A rule constraint takes any value (the policy checks its pattern).
	g, err := grant.New(three, grant.Binding{Principal: "user:carol", Tool: "deploy", Digest: Digest},
		map[string]string{"env": `"staging"`, "tag": `"v1"`}, map[string]string{"tag": "^v[0-9]+$"}, grant.AttestedHuman, T0)
	if err != nil {
		t.Fatal(err)
	}
	g.Args["tag"] = grant.Constraint{Exact: `"v1"`}
	create(t, a, g, T0)
	q := grant.Query{Principal: "user:carol", Tool: "deploy", Digest: Digest, Args: map[string]string{"env": `"staging"`, "tag": `"v2"`}}
	if _, err := a.Consume(ctx, q, T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Errorf("exact tag, other value: %v, want ErrNoGrant", err)
	}
	g, _ = grant.New(grant.Scope{ID: "p", Duration: time.Hour, Patterns: true}, grant.Binding{Principal: "user:carol", Tool: "deploy", Digest: Digest},
		map[string]string{"env": `"staging"`, "tag": `"v1"`}, map[string]string{"tag": "^v[0-9]+$"}, grant.AttestedHuman, T0)
	create(t, a, g, T0)
	if _, err := a.Consume(ctx, q, T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Errorf("patterns scope, other tag, and no pattern for tag in force (Query.Patterns): %v, want ErrNoGrant", err)
	}
	q.Patterns = map[string]string{"tag": "^v.+$"}
	if _, err := a.Consume(ctx, q, T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Errorf("patterns scope, other tag, another pattern for tag in force: %v, want ErrNoGrant", err)
	}
	q.Patterns = map[string]string{"tag": "^v[0-9]+$"}
	if u, err := a.Consume(ctx, q, T0); err != nil || u.Grant.ID != g.ID {
		t.Errorf("patterns scope, other tag: %+v, %v; want the patterns grant", u.Grant, err)
	}
	q.Args["env"] = `"production"`
	if _, err := a.Consume(ctx, q, T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Errorf("patterns scope, other env (not a rule argument): %v, want ErrNoGrant", err)
	}
}

func testCap(t *testing.T, max int, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	short := grant.Scope{ID: "short", Duration: time.Minute}
	for i := range max {
		create(t, a, NewGrant(t, "user:mallory", short, T0), T0)
		_ = i
	}
	if _, err := b.Create(ctx, NewGrant(t, "user:mallory", short, T0), T0); !errors.Is(err, grant.ErrCapacity) {
		t.Fatalf("grant %d of one principal: %v, want ErrCapacity", max+1, err)
	}
	create(t, b, NewGrant(t, "user:alice", three, T0), T0) // others are not affected
	// Expired grants are swept before the cap is applied (lossless).
	later := T0.Add(2 * time.Minute)
	expired, err := a.Create(ctx, NewGrant(t, "user:mallory", short, later), later)
	if err != nil || len(expired) != max {
		t.Fatalf("after expiry: %d expired, %v; want %d swept and the grant stored", len(expired), err, max)
	}
}

func testListRevoke(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	ga, gb := NewGrant(t, "user:alice", three, T0), NewGrant(t, "user:bob", three, T0)
	create(t, a, ga, T0)
	create(t, a, gb, T0)
	if _, err := a.Consume(ctx, Query("user:alice"), T0); err != nil {
		t.Fatal(err)
	}
	live, _, err := b.List(ctx, "user:alice", T0)
	if err != nil || len(live) != 1 || live[0].ID != ga.ID || live[0].Left != 2 {
		t.Fatalf("List(alice): %+v, %v; want her grant with 2 uses left", live, err)
	}
	if all, _, err := b.List(ctx, "", T0); err != nil || len(all) != 2 {
		t.Fatalf("List(all): %+v, %v; want both grants", all, err)
	}
	if _, err := b.Revoke(ctx, "user:bob", ga.ID); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("bob revoking alice's grant: %v, want ErrNotFound", err)
	}
	if g, err := b.Revoke(ctx, "user:alice", ga.ID); err != nil || g.ID != ga.ID {
		t.Fatalf("Revoke: %+v, %v", g, err)
	}
	if _, err := a.Consume(ctx, Query("user:alice"), T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("use after revocation: %v, want ErrNoGrant", err)
	}
	if _, err := a.Revoke(ctx, "user:alice", ga.ID); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("second Revoke: %v, want ErrNotFound", err)
	}
	bad := ga
	bad.ID = "x"
	if _, err := a.Create(ctx, bad, T0); !errors.Is(err, grant.ErrInvalid) {
		t.Fatalf("Create of an invalid grant: %v, want ErrInvalid", err)
	}
}

func testOrder(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, _ := newStores(t)
	long := NewGrant(t, "user:alice", grant.Scope{ID: "long", Duration: time.Hour, Uses: 1}, T0)
	short := NewGrant(t, "user:alice", grant.Scope{ID: "short", Duration: time.Minute, Uses: 1}, T0)
	create(t, a, long, T0)
	create(t, a, short, T0)
	for _, want := range []string{short.ID, long.ID} {
		if u, err := a.Consume(ctx, Query("user:alice"), T0); err != nil || u.Grant.ID != want {
			t.Fatalf("Consume: %+v, %v; want %s (the one that expires first)", u.Grant, err, want)
		}
	}
}

func testRefund(t *testing.T, newStores func(t *testing.T) (a, b grant.Store)) {
	ctx := context.Background()
	a, b := newStores(t)
	g := NewGrant(t, "user:alice", grant.Scope{ID: "one", Duration: time.Minute, Uses: 1}, T0)
	create(t, a, g, T0)
	u, err := a.Consume(ctx, Query("user:alice"), T0)
	if err != nil || u.Grant.Left != 0 {
		t.Fatalf("the one use: %+v, %v", u.Grant, err)
	}
	if live, _, _ := b.List(ctx, "user:alice", T0); len(live) != 0 {
		t.Fatalf("a spent grant is listed: %+v", live)
	}
	if err := b.Refund(ctx, u.Grant, T0); err != nil {
		t.Fatalf("Refund of the spent use: %v", err)
	}
	if err := b.Refund(ctx, u.Grant, T0); err != nil {
		t.Fatalf("second Refund: %v", err)
	}
	if _, err := a.Consume(ctx, Query("user:alice"), T0); err != nil {
		t.Fatalf("use after the refund: %v", err)
	}
	if _, err := a.Consume(ctx, Query("user:alice"), T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a refund gave back more than the grant's uses: %v", err)
	}
	if _, err := a.Revoke(ctx, "user:alice", g.ID); err != nil {
		t.Fatalf("Revoke of a spent grant: %v", err)
	}
	if err := b.Refund(ctx, u.Grant, T0); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("Refund after Revoke: %v, want ErrNotFound", err)
	}
	if _, err := a.Consume(ctx, Query("user:alice"), T0); !errors.Is(err, grant.ErrNoGrant) {
		t.Fatalf("a refund brought a revoked grant back: %v", err)
	}
	g2 := NewGrant(t, "user:bob", grant.Scope{ID: "one", Duration: time.Minute, Uses: 1}, T0)
	create(t, a, g2, T0)
	u, _ = a.Consume(ctx, Query("user:bob"), T0)
	if err := b.Refund(ctx, u.Grant, T0.Add(time.Minute)); !errors.Is(err, grant.ErrNotFound) {
		t.Fatalf("Refund after expiry: %v, want ErrNotFound", err)
	}
}
