package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/storetest"
)

func newMemChallenges(t *testing.T) approval.ChallengeStore {
	s, err := approval.NewMemoryChallengeStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newMemCredentials(t *testing.T) approval.CredentialStore {
	s, err := approval.NewMemoryCredentialStore(nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newFileCredentials(t *testing.T) approval.CredentialStore {
	s, err := approval.OpenFileCredentialStore(filepath.Join(t.TempDir(), "credentials.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMemoryChallengeStoreConformance(t *testing.T) {
	storetest.TestChallengeStore(t, newMemChallenges)
}

func TestMemoryChallengeStoreUserCap(t *testing.T) {
	storetest.TestChallengeStoreUserCap(t, func(t *testing.T) approval.ChallengeStore {
		s, err := approval.NewMemoryChallengeStore(&approval.MemoryChallengeOptions{MaxPendingPerUser: 5, Retention: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, 5)
	// The default cap.
	storetest.TestChallengeStoreUserCap(t, newMemChallenges, approval.DefaultMaxPendingPerUser)
}

func TestMemoryCredentialStoreConformance(t *testing.T) {
	storetest.TestCredentialStore(t, newMemCredentials)
}

func TestFileCredentialStoreConformance(t *testing.T) {
	storetest.TestCredentialStore(t, newFileCredentials)
}

func TestGateOverMemoryStores(t *testing.T) {
	storetest.TestGate(t, func(t *testing.T) (approval.ChallengeStore, approval.CredentialStore) {
		return newMemChallenges(t), newMemCredentials(t)
	})
}

func TestGateOverFileStore(t *testing.T) {
	storetest.TestGate(t, func(t *testing.T) (approval.ChallengeStore, approval.CredentialStore) {
		return newMemChallenges(t), newFileCredentials(t)
	})
}

// TestMemoryChallengeStoreReaping: consumed reports consumed until it
// expires, expired reports expired for the retention, then the entry is
// reaped and memory returns.
func TestMemoryChallengeStoreReaping(t *testing.T) {
	ctx := context.Background()
	s, _ := approval.NewMemoryChallengeStore(&approval.MemoryChallengeOptions{Retention: 30 * time.Second})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	exp := now.Add(time.Minute)
	for _, id := range []string{"a", "b"} {
		if err := s.Put(ctx, &approval.Challenge{ID: id, ExpiresAt: exp}, now); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Consume(ctx, "a", now)
	if c, err := s.Get(ctx, "a", exp.Add(-time.Second)); err != nil || !c.Consumed {
		t.Fatalf("consumed before expiry: %+v %v", c, err)
	}
	if err := s.Consume(ctx, "b", exp.Add(10*time.Second)); !errors.Is(err, approval.ErrExpired) {
		t.Fatalf("expired within retention: %v", err)
	}
	if _, err := s.Get(ctx, "a", exp.Add(30*time.Second)); !errors.Is(err, approval.ErrNotFound) || s.Len() != 0 {
		t.Fatalf("after retention: %v, %d stored", err, s.Len())
	}
}

func TestMemoryChallengeStoreBounded(t *testing.T) {
	ctx := context.Background()
	s, _ := approval.NewMemoryChallengeStore(&approval.MemoryChallengeOptions{MaxChallenges: 3, Retention: time.Second})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"a", "b", "c"} {
		if err := s.Put(ctx, &approval.Challenge{ID: id, ExpiresAt: now.Add(time.Duration(i+1) * time.Minute)}, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(ctx, &approval.Challenge{ID: "d", ExpiresAt: now.Add(time.Minute)}, now); !errors.Is(err, approval.ErrCapacity) {
		t.Fatalf("Put over capacity: %v", err)
	}
	if _, err := s.Get(ctx, "a", now); err != nil {
		t.Fatalf("existing challenge lost to the flood: %v", err)
	}
	// Once "a" is reaped there is room again.
	if err := s.Put(ctx, &approval.Challenge{ID: "d", ExpiresAt: now.Add(5 * time.Minute)}, now.Add(time.Minute+time.Second)); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryCredentialStoreBounded(t *testing.T) {
	ctx := context.Background()
	s, _ := approval.NewMemoryCredentialStore(&approval.MemoryCredentialOptions{MaxCredentialsPerUser: 2, MaxCredentials: 3})
	add := func(user, id string) error {
		return s.Add(ctx, &approval.Credential{ID: []byte(id), UserHandle: []byte(user), PublicKey: []byte("k")})
	}
	_ = add("alice", "1")
	_ = add("alice", "2")
	if err := add("alice", "3"); !errors.Is(err, approval.ErrCapacity) {
		t.Fatalf("third credential for alice: %v", err)
	}
	_ = add("bob", "4")
	if err := add("carol", "5"); !errors.Is(err, approval.ErrCapacity) {
		t.Fatalf("over the total: %v", err)
	}
	if _, err := approval.NewMemoryChallengeStore(&approval.MemoryChallengeOptions{MaxChallenges: -1}); !errors.Is(err, approval.ErrInvalidOptions) {
		t.Fatalf("negative option: %v", err)
	}
}

func TestFileCredentialStoreSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "creds.json")
	s, err := approval.OpenFileCredentialStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &approval.Credential{ID: []byte("k1"), UserHandle: []byte("alice"), PublicKey: []byte("cose"), SignCount: 3, Transports: []string{"usb"}}
	if err := s.Add(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateCounter(ctx, c.UserHandle, c.ID, 9); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi.Mode(), err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := approval.OpenFileCredentialStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s2.Get(ctx, c.UserHandle, c.ID)
	if err != nil || got.SignCount != 9 || got.Transports[0] != "usb" {
		t.Fatalf("after reopen: %+v %v", got, err)
	}
	if err := s2.Add(ctx, c); !errors.Is(err, approval.ErrDuplicate) {
		t.Fatalf("re-adding after reopen: %v", err)
	}
}

func TestFileCredentialStoreFailsClosed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(path, []byte(`{"version":1,"credentials":[{"id":"azE="`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := approval.OpenFileCredentialStore(path, nil); err == nil {
		t.Fatal("torn file opened")
	}
	// A missing directory fails at once.
	path = filepath.Join(dir, "sub", "creds.json")
	if _, err := approval.OpenFileCredentialStore(path, nil); err == nil {
		t.Fatal("opened in a missing directory")
	}
	// A write that cannot happen rolls back.
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := approval.OpenFileCredentialStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.RemoveAll(filepath.Dir(path)); err != nil { // writes fail from now on
		t.Fatal(err)
	}
	c := &approval.Credential{ID: []byte("k1"), UserHandle: []byte("alice"), PublicKey: []byte("cose")}
	if err := s.Add(ctx, c); !errors.Is(err, approval.ErrUnavailable) {
		t.Fatalf("Add without a writable file: %v", err)
	}
	if l, _ := s.List(ctx, c.UserHandle); len(l) != 0 {
		t.Fatal("failed Add left the credential in memory")
	}
}

// TestMemoryChallengeStorePendingBounded: the per-user pending counts are
// dropped when their challenges are consumed or expire, so many users
// passing through leave nothing behind.
func TestMemoryChallengeStorePendingBounded(t *testing.T) {
	ctx := context.Background()
	s, _ := approval.NewMemoryChallengeStore(&approval.MemoryChallengeOptions{Retention: time.Second})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 1000; i++ {
		c := &approval.Challenge{ID: fmt.Sprint("c", i), UserHandle: []byte(fmt.Sprint("user-", i)), ExpiresAt: now.Add(time.Minute)}
		if err := s.Put(ctx, c, now); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := s.Consume(ctx, c.ID, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := s.PendingUsers(); got != 500 {
		t.Fatalf("%d users counted with 500 pending challenges", got)
	}
	// Expired but retained: no longer pending, still stored.
	if _, err := s.Get(ctx, "c1", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := s.PendingUsers(); got != 0 || s.Len() != 1000 {
		t.Fatalf("after expiry: %d users counted, %d stored", got, s.Len())
	}
	// A challenge put already expired is never pending.
	if err := s.Put(ctx, &approval.Challenge{ID: "late", UserHandle: []byte("u"), ExpiresAt: now}, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := s.PendingUsers(); got != 0 {
		t.Fatalf("an expired challenge counts as pending for %d users", got)
	}
	if _, err := s.Get(ctx, "c1", now.Add(2*time.Minute)); !errors.Is(err, approval.ErrNotFound) || s.Len() != 0 {
		t.Fatalf("after retention: %v, %d stored", err, s.Len())
	}
}

// TestGateChallengeFloodPerUser: an agent that asks for challenges without
// ever approving reaches its own cap; other users still get challenges, and
// approving one of its challenges lets it ask again.
func TestGateChallengeFloodPerUser(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	var first *approval.ChallengeResult
	for i := 0; i < approval.DefaultMaxPendingPerUser; i++ {
		ch := f.challenge(testTool, testArgs)
		if first == nil {
			first = ch
		}
	}
	ctx := context.Background()
	if _, err := f.gate.CreateChallenge(ctx, f.user, testTool, json.RawMessage(testArgs)); !errors.Is(err, approval.ErrCapacity) {
		t.Fatalf("challenge beyond the per-user cap: %v, want ErrCapacity", err)
	}
	bob := newFixture(t, &fixtureOpts{challenges: f.chals})
	bob.user = approval.NewUser("agent-bob")
	bob.enroll()
	bob.challenge(testTool, testArgs)
	if _, err := f.verify(testTool, testArgs, f.evidence(first)); err != nil {
		t.Fatal(err)
	}
	f.challenge(testTool, testArgs)
}
