package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

// TestEvictionPolicyIsRefusedOrStateSurvives (issue 17 fault 1): a 16 MB
// Redis under each maxmemory-policy, flooded by an attacker through the
// store: the store either refuses the configuration at New or the victim's
// spent budget, empty bucket and committed steps survive the flood.
func TestEvictionPolicyIsRefusedOrStateSurvives(t *testing.T) {
	policies := []string{"noeviction", "allkeys-lru", "volatile-lru", "volatile-ttl", "allkeys-random", "volatile-random", "allkeys-lfu", "volatile-lfu"}
	for _, pol := range policies {
		t.Run(pol, func(t *testing.T) {
			srv := redistest.StartWith(t, redistest.Config{MaxMemory: "16mb", Policy: pol})
			c := newClient(t, srv.Addr())
			ctx := context.Background()
			s, err := redisstore.New(ctx, c, &redisstore.Options{Warn: func(string) {}, Timeout: raceTimeout})
			if pol != "noeviction" {
				if !errors.Is(err, ratelimit.ErrInvalidOptions) || !strings.Contains(err.Error(), pol) {
					t.Fatalf("New under %s = %v, want ErrInvalidOptions naming the policy", pol, err)
				}
				// Without the identity caps, so that the flood reaches
				// maxmemory and the eviction policy is what is tested, and
				// without the lost-data marker: an evicted marker would make
				// the evicted state fail closed as lost (by chance, as LRU
				// picks it or not), hiding the fault shown here.
				s, err := redisstore.New(ctx, c, &redisstore.Options{Warn: func(string) {}, AcceptEviction: true, AcceptIdentityFlood: true, AcceptDataLoss: true, Timeout: raceTimeout})
				if err != nil {
					t.Fatalf("New with AcceptEviction under %s: %v", pol, err)
				}
				if pol == "allkeys-lru" {
					// What New refuses by default: the flood evicts the
					// victim's state (the fault as it was before New checked).
					// Redis's LRU is sampled: a key is evicted once a sample
					// finds it old, so the flood goes on in rounds (each past
					// the first evicts about one key per write) until the
					// victim lost something. held reads without writing
					// while nothing is lost.
					v := newVictim(t, s)
					v.spend(t)
					var lost []string
					for round := 0; round < 4 && len(lost) == 0; round++ {
						floodUntil(t, s, round*60_000, 60_000)
						lost = v.held(t)
					}
					if len(lost) == 0 {
						t.Fatal("four floods under allkeys-lru evicted none of the victim's state; the flood is too small to test anything")
					}
					t.Logf("accepted eviction, as expected the victim lost: %s", strings.Join(lost, ", "))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			v := newVictim(t, s)
			v.spend(t)
			capacity := flood(t, s)
			if capacity == 0 {
				t.Fatal("the flood never reached maxmemory; the test proves nothing")
			}
			// Room again, then the victim's state must be what it was.
			if err := c.ConfigSet(ctx, "maxmemory", "0").Err(); err != nil {
				t.Fatal(err)
			}
			if lost := v.held(t); len(lost) > 0 {
				t.Fatalf("after the flood under %s: %s", pol, strings.Join(lost, ", "))
			}
		})
	}
}

// floodUntil writes the state of n attackers, numbered from from, through
// s (under an eviction policy, Redis never refuses).
func floodUntil(t *testing.T, s ratelimit.Store, from, n int) {
	t.Helper()
	ctx := context.Background()
	pad := strings.Repeat("x", 200)
	for i := from; i < from+n; i++ {
		key := fmt.Sprintf("attacker-%d-%s", i, pad)
		if _, err := s.Take(ctx, key, ratelimit.MustParseRate("1/hour"), epoch); err != nil {
			t.Fatalf("flood %d: %v", i, err)
		}
	}
}

// flood writes attacker state through s until Redis refuses at maxmemory,
// and returns how many writes were refused as capacity (never as an outage).
func flood(t *testing.T, s ratelimit.Store) int {
	t.Helper()
	ctx := context.Background()
	pad := strings.Repeat("x", 200)
	capacity := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				key := fmt.Sprintf("attacker-%d-%d-%s", w, i, pad)
				_, err := s.Take(ctx, key, ratelimit.MustParseRate("1/hour"), epoch)
				if err == nil {
					_, err = s.Spend(ctx, key, []ratelimit.Counter{{Name: "n", Add: 1, Max: 10, TTL: time.Hour}}, ratelimit.SpendCommit, epoch)
				}
				if err != nil {
					mu.Lock()
					defer mu.Unlock()
					if !errors.Is(err, ratelimit.ErrCapacity) || errors.Is(err, ratelimit.ErrUnavailable) {
						t.Errorf("flood write %d: %v, want a capacity error", i, err)
					}
					capacity++
					return
				}
			}
		}()
	}
	wg.Wait()
	return capacity
}

// TestLostDataFailsClosed (issue 17 fault 5): Redis restarted without
// persistence forgets committed steps. Unknown conversations past step 1
// then fail closed with CodeStateLost until one ConversationTTL has passed;
// step 1 of a new conversation works. With AOF the state survives instead.
func TestLostDataFailsClosed(t *testing.T) {
	ctx := context.Background()
	for _, aof := range []bool{false, true} {
		t.Run(fmt.Sprintf("appendonly=%v", aof), func(t *testing.T) {
			srv := redistest.StartWith(t, redistest.Config{AppendOnly: aof})
			c := newClient(t, srv.Addr())
			s := newStore(t, c, &redisstore.Options{RequireDurable: aof})
			v := newVictim(t, s)
			v.spend(t)
			srv.Restart()
			var err error
			for range 100 { // until the client has reconnected
				if _, err = v.guard.Begin(ctx, stepOf("victim", "conv", 2)); !errors.Is(err, ratelimit.ErrUnavailable) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if aof {
				if !errors.Is(err, ratelimit.ErrReplay) {
					t.Fatalf("replay of step 2 after an AOF restart: %v, want ErrReplay", err)
				}
				return
			}
			if !errors.Is(err, ratelimit.ErrStateLost) || !strings.Contains(err.Error(), "lost in a restart") {
				t.Fatalf("replay of step 2 after a restart without persistence: %v, want ErrStateLost", err)
			}
			if _, err := v.guard.Begin(ctx, stepOf("victim", "conv", 4)); !errors.Is(err, ratelimit.ErrStateLost) {
				t.Fatalf("step 4 of the lost conversation: %v, want ErrStateLost", err)
			}
			r, err := v.guard.Begin(ctx, stepOf("victim", "new-conv", 1))
			if err != nil {
				t.Fatalf("step 1 of a new conversation after the restart: %v", err)
			}
			if err := r.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			// Step 2 of a conversation known since the restart is fine.
			if _, err := v.guard.Begin(ctx, stepOf("victim", "new-conv", 2)); err != nil {
				t.Fatalf("step 2 of a conversation started after the restart: %v", err)
			}
			// A second store instance (a replica starting now) sees the
			// young marker too.
			g2, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: newStore(t, c, nil)})
			if _, err := g2.Begin(ctx, stepOf("victim", "conv", 5)); !errors.Is(err, ratelimit.ErrStateLost) {
				t.Fatalf("replica started after the loss, step 5: %v, want ErrStateLost", err)
			}
			// Once a whole ConversationTTL has passed, unknown conversations
			// are new again (whatever was lost would have expired).
			g3, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s, ConversationTTL: time.Millisecond})
			time.Sleep(5 * time.Millisecond)
			if r, err := g3.Begin(ctx, stepOf("victim", "other", 3)); err != nil {
				t.Fatalf("unknown conversation past the TTL: %v", err)
			} else {
				_ = r.Release(ctx)
			}
		})
	}
}

// TestNewRefusesNonDurableWhenAsked: RequireDurable refuses appendonly no.
func TestNewRefusesNonDurableWhenAsked(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	var warned []string
	if _, err := redisstore.New(context.Background(), c, &redisstore.Options{RequireDurable: true}); !errors.Is(err, ratelimit.ErrInvalidOptions) || !strings.Contains(err.Error(), "appendonly") {
		t.Fatalf("New(RequireDurable) on appendonly no = %v, want ErrInvalidOptions naming appendonly", err)
	}
	if _, err := redisstore.New(context.Background(), c, &redisstore.Options{Warn: func(m string) { warned = append(warned, m) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "appendonly no") {
		t.Fatalf("warnings %q, want one about appendonly", warned)
	}
}

// TestClusterNeedsAcceptDataLoss: one marker cannot cover several servers,
// nor one script evict keys of several slots.
func TestClusterNeedsAcceptDataLoss(t *testing.T) {
	srv := redistest.Start(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": srv.Addr()}, ContextTimeoutEnabled: true})
	defer ring.Close()
	ctx := context.Background()
	if _, err := redisstore.New(ctx, ring, &redisstore.Options{Warn: func(string) {}}); !errors.Is(err, ratelimit.ErrInvalidOptions) || !strings.Contains(err.Error(), "AcceptIdentityFlood") {
		t.Fatalf("New(ring) = %v, want ErrInvalidOptions naming AcceptIdentityFlood", err)
	}
	if _, err := redisstore.New(ctx, ring, &redisstore.Options{Warn: func(string) {}, AcceptIdentityFlood: true}); !errors.Is(err, ratelimit.ErrInvalidOptions) || !strings.Contains(err.Error(), "AcceptDataLoss") {
		t.Fatalf("New(ring, AcceptIdentityFlood) = %v, want ErrInvalidOptions naming AcceptDataLoss", err)
	}
	if _, err := redisstore.New(ctx, ring, &redisstore.Options{Warn: func(string) {}, AcceptDataLoss: true, AcceptIdentityFlood: true}); err != nil {
		t.Fatalf("New(ring, AcceptDataLoss, AcceptIdentityFlood): %v", err)
	}
}

// TestPolicySwitchedLaterFailsClosed: a maxmemory-policy switched to an
// evicting one after New is noticed at the next recheck, and every call
// fails closed naming it until it is switched back.
func TestPolicySwitchedLaterFailsClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s := newStore(t, c, &redisstore.Options{Recheck: 10 * time.Millisecond})
	ctx := context.Background()
	r := ratelimit.MustParseRate("1000/second")
	if _, err := s.Take(ctx, "k", r, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	for range 3 {
		if _, err := s.Take(ctx, "k", r, time.Now()); !errors.Is(err, ratelimit.ErrUnavailable) || !strings.Contains(err.Error(), "allkeys-lru") {
			t.Fatalf("after the switch: %v, want ErrUnavailable naming the policy", err)
		}
	}
	if err := c.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := s.Take(ctx, "k", r, time.Now()); err != nil {
		t.Fatalf("after switching back: %v", err)
	}
}
