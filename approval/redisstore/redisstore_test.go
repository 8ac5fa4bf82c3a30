package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/redisstore"
	"github.com/gatehouse-dev/gatehouse/approval/storetest"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// testTimeout is generous: 1,000 goroutines queue for 32 pooled
// connections under -race, and these tests check atomicity, not latency.
const testTimeout = 20 * time.Second

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	var n atomic.Int64
	opts := func() *redisstore.Options {
		return &redisstore.Options{Prefix: fmt.Sprintf("t%d:", n.Add(1)), Timeout: testTimeout}
	}
	newChallenges := func(t *testing.T) approval.ChallengeStore {
		s, err := redisstore.NewChallengeStore(context.Background(), c, opts())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	newCredentials := func(t *testing.T) approval.CredentialStore {
		s, err := redisstore.NewCredentialStore(context.Background(), c, opts())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Run("Challenges", func(t *testing.T) { storetest.TestChallengeStore(t, newChallenges) })
	t.Run("Credentials", func(t *testing.T) { storetest.TestCredentialStore(t, newCredentials) })
	t.Run("Gate", func(t *testing.T) {
		storetest.TestGate(t, func(t *testing.T) (approval.ChallengeStore, approval.CredentialStore) {
			return newChallenges(t), newCredentials(t)
		})
	})
}

func TestChallengeKeysExpire(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s, _ := redisstore.NewChallengeStore(context.Background(), c, &redisstore.Options{Prefix: "exp:", Retention: time.Second})
	now := time.Now()
	if err := s.Put(context.Background(), &approval.Challenge{ID: "x", ExpiresAt: now.Add(time.Minute)}, now); err != nil {
		t.Fatal(err)
	}
	ttl, err := c.PTTL(context.Background(), "exp:ch:{x}").Result()
	if err != nil || ttl <= time.Minute-time.Second || ttl > time.Minute+time.Second {
		t.Fatalf("challenge key TTL %v (%v), want about ExpiresAt-now+Retention", ttl, err)
	}
}

// TestFailsClosed: with Redis gone, every operation errors with
// ErrUnavailable, and a Gate denies.
func TestFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	chals, _ := redisstore.NewChallengeStore(context.Background(), c, &redisstore.Options{Timeout: 300 * time.Millisecond})
	creds, _ := redisstore.NewCredentialStore(context.Background(), c, &redisstore.Options{Timeout: 300 * time.Millisecond})
	g, err := approval.New(approval.Config{ServerID: "urn:uuid:failclosed-1", RPID: "gatehouse.test", Origins: []string{"https://gatehouse.test"}},
		&approval.Options{Challenges: chals, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	_ = g.Require("t", approval.ToolPolicy{})
	srv.Kill()
	ctx := context.Background()
	now := time.Now()
	for name, err := range map[string]error{
		"put":     chals.Put(ctx, &approval.Challenge{ID: "a", ExpiresAt: now.Add(time.Minute)}, now),
		"consume": chals.Consume(ctx, "a", now),
		"add":     creds.Add(ctx, &approval.Credential{ID: []byte("k"), UserHandle: []byte("u")}),
		"counter": creds.UpdateCounter(ctx, []byte("u"), []byte("k"), 3),
	} {
		if !errors.Is(err, approval.ErrUnavailable) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := chals.Get(ctx, "a", now); !errors.Is(err, approval.ErrUnavailable) {
		t.Errorf("get: %v", err)
	}
	_, err = g.Verify(ctx, approval.NewUser("u"), approval.Call{Tool: "t", Evidence: []byte(`{"method":"webauthn","challengeId":"a","response":{}}`)})
	if !errors.Is(err, approval.ErrChallengeUnknown) || !errors.Is(err, approval.ErrUnavailable) {
		t.Fatalf("verify with Redis down: %v", err)
	}
	if _, err := g.CreateChallenge(ctx, approval.NewUser("u"), "t", nil); !errors.Is(err, approval.ErrUnavailable) {
		t.Fatalf("challenge with Redis down: %v", err)
	}
}

func TestNewRefusesClientWithoutContextTimeouts(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	if _, err := redisstore.NewChallengeStore(context.Background(), c, nil); !errors.Is(err, approval.ErrInvalidOptions) {
		t.Fatalf("got %v", err)
	}
	c2 := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer c2.Close()
	if _, err := redisstore.NewCredentialStore(context.Background(), c2, &redisstore.Options{Prefix: "a{b}"}); !errors.Is(err, approval.ErrInvalidOptions) {
		t.Fatalf("prefix with braces: %v", err)
	}
}

func TestChallengeUserCap(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	var n atomic.Int64
	for _, perUser := range []int{3, approval.DefaultMaxPendingPerUser} {
		opts := &redisstore.Options{Timeout: testTimeout}
		if perUser != approval.DefaultMaxPendingPerUser {
			opts.MaxPendingPerUser = perUser
		}
		storetest.TestChallengeStoreUserCap(t, func(t *testing.T) approval.ChallengeStore {
			o := *opts
			o.Prefix = fmt.Sprintf("cap%d:", n.Add(1))
			s, err := redisstore.NewChallengeStore(context.Background(), c, &o)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, perUser)
	}
}

// TestChallengeUserCapConcurrent: replicas racing to put challenges for
// one user never exceed the cap together.
func TestChallengeUserCapConcurrent(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s, err := redisstore.NewChallengeStore(context.Background(), c, &redisstore.Options{Prefix: "race:", Timeout: testTimeout, MaxPendingPerUser: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	ok, full := storetest.Race(t, 200, approval.ErrCapacity, func(i int) error {
		return s.Put(ctx, &approval.Challenge{ID: fmt.Sprint("c", i), UserHandle: []byte("alice"), Bytes: make([]byte, 64), ExpiresAt: now.Add(time.Minute)}, now)
	})
	if ok != 10 || full != 190 {
		t.Fatalf("%d stored and %d refused of 200 with a cap of 10", ok, full)
	}
}

func TestCredentialTotalCap(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s, err := redisstore.NewCredentialStore(context.Background(), c, &redisstore.Options{Prefix: "total:", MaxCredentials: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	add := func(user, id string) error {
		return s.Add(ctx, &approval.Credential{ID: []byte(id), UserHandle: []byte(user), PublicKey: []byte("k")})
	}
	for i, u := range []string{"a", "b", "c"} {
		if err := add(u, fmt.Sprint("k", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := add("d", "k9"); !errors.Is(err, approval.ErrCapacity) {
		t.Fatalf("fourth credential: %v, want ErrCapacity", err)
	}
	// A duplicate is still reported as one, and refused adds count nothing.
	if err := add("d", "k0"); !errors.Is(err, approval.ErrDuplicate) {
		t.Fatalf("duplicate at capacity: %v", err)
	}
	if l, err := s.List(ctx, []byte("d")); err != nil || len(l) != 0 {
		t.Fatalf("refused credential listed: %v %v", l, err)
	}
	if n, err := c.Get(ctx, "total:{creds}:n").Int(); err != nil || n != 3 {
		t.Fatalf("count %d (%v), want 3", n, err)
	}
}
