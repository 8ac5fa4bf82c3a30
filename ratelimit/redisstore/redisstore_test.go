package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
	"github.com/gatehouse-dev/gatehouse/ratelimit/storetest"
)

func newClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

func newStore(t *testing.T, c redisstore.Client, opts *redisstore.Options) *redisstore.Store {
	t.Helper()
	if opts == nil {
		opts = &redisstore.Options{}
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	s, err := redisstore.New(context.Background(), c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) ratelimit.Store {
		// A fresh prefix gives each subtest an empty store on one server.
		return newStore(t, c, &redisstore.Options{Prefix: fmt.Sprintf("test%d:", n.Add(1)), Timeout: raceTimeout})
	})
}

// TestConformanceSmallCaps runs the suite against identity caps small
// enough for its floods to reach them (as the memory store's does), so
// eviction and capacity refusals are held to the same rules.
func TestConformanceSmallCaps(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) ratelimit.Store {
		return newStore(t, c, &redisstore.Options{Prefix: fmt.Sprintf("small%d:", n.Add(1)), Timeout: raceTimeout,
			MaxRateKeys: 64, MaxBudgetScopes: 64, MaxConversations: 64})
	})
}

// TestReplicasConformance: two stores with their own clients on one Redis
// keep the race counts of storetest.RunReplicas exact.
func TestReplicasConformance(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int64
	storetest.RunReplicas(t, func(t *testing.T) (ratelimit.Store, ratelimit.Store) {
		o := &redisstore.Options{Prefix: fmt.Sprintf("rep%d:", n.Add(1))}
		return newStore(t, newClient(t, srv.Addr()), o), newStore(t, newClient(t, srv.Addr()), o)
	})
}

// raceTimeout is the per-call timeout of tests that start 1,000 goroutines:
// they queue for pooled connections, which counts against the timeout, and
// these tests check atomicity, not latency (the kill and hang tests do).
const raceTimeout = 10 * time.Second

func TestNewRejectsBadOptions(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer c.Close()
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer plain.Close()
	if _, err := redisstore.New(context.Background(), plain, nil); !errors.Is(err, ratelimit.ErrInvalidOptions) || !strings.Contains(err.Error(), "ContextTimeoutEnabled") {
		t.Errorf("New(client without ContextTimeoutEnabled) = %v, want ErrInvalidOptions naming the option", err)
	}
	for _, o := range []*redisstore.Options{{Prefix: "a{b}:"}, {Timeout: -time.Second}} {
		if _, err := redisstore.New(context.Background(), c, o); !errors.Is(err, ratelimit.ErrInvalidOptions) {
			t.Errorf("New(%+v) = %v, want ErrInvalidOptions", o, err)
		}
	}
	if _, err := redisstore.New(context.Background(), nil, nil); !errors.Is(err, ratelimit.ErrInvalidOptions) {
		t.Errorf("New(nil) = %v, want ErrInvalidOptions", err)
	}
}

// TestKeysAreNamespaced checks the documented key layout.
func TestKeysAreNamespaced(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	s := newStore(t, c, &redisstore.Options{Prefix: "app1:"})
	ctx := context.Background()
	now := time.Now()
	if _, err := s.Take(ctx, "tool", ratelimit.MustParseRate("1/s"), now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Spend(ctx, "agent", []ratelimit.Counter{{Name: "n", Add: 1, TTL: time.Hour}}, ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	p := ratelimit.StepParams{MaxRepeats: 2, ReservationTTL: time.Minute, ConversationTTL: time.Hour}
	res, err := s.Reserve(ctx, "conv", 1, ratelimit.Fingerprint{}, p, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "conv", 1, res.Token, ratelimit.Fingerprint{}, p, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, "conv", 2, ratelimit.Fingerprint{}, p, now); err != nil {
		t.Fatal(err)
	}
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// A charge leaves a receipt for a few seconds (a lost reply takes the
	// charge back by it): one, named by a token, soon gone.
	var receipts []string
	keys = slices.DeleteFunc(keys, func(k string) bool {
		if regexp.MustCompile(`^app1:b:\{agent\}![0-9a-f]{32}$`).MatchString(k) {
			receipts = append(receipts, k)
			return true
		}
		return false
	})
	if len(receipts) != 1 {
		t.Fatalf("receipts %q after one charge, want one", receipts)
	}
	if ttl := c.PTTL(ctx, receipts[0]).Val(); ttl <= 0 || ttl > 10*time.Second {
		t.Errorf("the receipt lives %v, want a few seconds", ttl)
	}
	got := strings.Join(sorted(keys), " ")
	want := "app1:b:{agent}:n app1:bm:{agent} app1:c:{conv}4:conv app1:c:{conv}4:conv:2 app1:ix:b app1:ix:bu app1:ix:c app1:ix:r app1:marker:2 app1:o:{conv} app1:r:{tool}"
	if got != want {
		t.Fatalf("keys %q, want %q", got, want)
	}
	for _, k := range keys {
		if k == "app1:marker:2" || strings.HasPrefix(k, "app1:ix:") {
			// The marker never expires: its absence means lost data. The
			// indexes of live identities are bounded by their caps.
			if ttl := c.PTTL(ctx, k).Val(); ttl != -1 {
				t.Errorf("%s has PTTL %v, want none", k, ttl)
			}
			continue
		}
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 {
			t.Errorf("key %s has no expiry (PTTL %v)", k, ttl)
		}
	}
}

func sorted(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestOneRoundTripPerCheck counts the commands a rate check sends.
func TestOneRoundTripPerCheck(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	var cmds atomic.Int64
	c.AddHook(countHook{&cmds})
	s := newStore(t, c, nil)
	ctx := context.Background()
	r := ratelimit.MustParseRate("100/s")
	if _, err := s.Take(ctx, "warm", r, time.Now()); err != nil { // loads the script
		t.Fatal(err)
	}
	cmds.Store(0)
	for i := range 10 {
		if _, err := s.Take(ctx, fmt.Sprint("k", i), r, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if n := cmds.Load(); n != 10 {
		t.Fatalf("10 checks sent %d commands, want 10 (one EVALSHA each)", n)
	}
}

type countHook struct{ n *atomic.Int64 }

func (countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "hello" && cmd.Name() != "client" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (h countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestGuardRaceForOneStep: 1,000 goroutines Begin the same step through a
// Guard on Redis; exactly one wins.
func TestGuardRaceForOneStep(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Timeout: raceTimeout})
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	a := ratelimit.Action{Agent: "agent", ConversationID: "conv", Step: 1, Tool: "read_file", Args: map[string]any{"path": "/tmp/x"}}
	var won, replay atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := g.Begin(context.Background(), a)
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, ratelimit.ErrReplay):
				replay.Add(1)
			default:
				t.Errorf("Begin: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if won.Load() != 1 || replay.Load() != 999 {
		t.Fatalf("%d won, %d denied with LOOP-002; want 1 and 999", won.Load(), replay.Load())
	}
}

// TestBudgetRaceSpendsExactlyN: 1,000 goroutines Charge a Budget of N
// requests per hour on Redis; exactly N succeed.
func TestBudgetRaceSpendsExactlyN(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv.Addr()), &redisstore.Options{Timeout: raceTimeout})
	const n = 250
	b, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: n}, &ratelimit.BudgetOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	var ok, denied atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err := b.Charge(context.Background(), "agent", ratelimit.Usage{Cost: 0.01})
			var be *ratelimit.BudgetError
			switch {
			case err == nil:
				ok.Add(1)
			case errors.As(err, &be) && be.Limit == ratelimit.LimitRequestsPerHour && be.Current == n:
				denied.Add(1)
			default:
				t.Errorf("Charge: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if ok.Load() != n || denied.Load() != 1000-n {
		t.Fatalf("%d charges succeeded, %d denied; want exactly %d and %d", ok.Load(), denied.Load(), n, 1000-n)
	}
}

// TestRedisKilledFailsClosedAndRecovers kills redis-server in the middle of
// a test: every check then fails closed within the timeout; after a restart
// on the same port the same client and store work again.
func TestRedisKilledFailsClosedAndRecovers(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	const timeout = 300 * time.Millisecond
	s := newStore(t, c, &redisstore.Options{Timeout: timeout})
	lim, err := ratelimit.NewLimiter(ratelimit.MustParseRate("1000/s"), &ratelimit.LimiterOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	bud, err := ratelimit.NewBudget(ratelimit.Limits{RequestsPerDay: 100}, &ratelimit.BudgetOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	g, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conv := "c"
	action := func(step int64) ratelimit.Action {
		return ratelimit.Action{Agent: "a", ConversationID: conv, Step: step, Tool: "t", Args: map[string]any{"step": step}}
	}
	checkAll := func(step int64) []error {
		res, err := lim.Allow(ctx, "tool")
		if err == nil && !res.Allowed {
			err = errors.New("rate check denied")
		}
		errs := []error{err, bud.Charge(ctx, "a", ratelimit.Usage{})}
		r, err := g.Begin(ctx, action(step))
		if err == nil {
			err = r.Commit(ctx)
		}
		return append(errs, err)
	}
	for _, err := range checkAll(1) {
		if err != nil {
			t.Fatalf("before the kill: %v", err)
		}
	}

	srv.Kill()
	for _, name := range []string{"rate", "budget", "guard"} {
		start := time.Now()
		var err error
		switch name {
		case "rate":
			var res ratelimit.Result
			res, err = lim.Allow(ctx, "tool")
			if res.Allowed {
				t.Errorf("rate check allowed while Redis is down")
			}
		case "budget":
			err = bud.Check(ctx, "a", ratelimit.Usage{})
		case "guard":
			_, err = g.Begin(ctx, action(2))
		}
		elapsed := time.Since(start)
		if !errors.Is(err, ratelimit.ErrUnavailable) || !strings.Contains(err.Error(), "redis") {
			t.Errorf("%s with Redis killed: %v, want ErrUnavailable naming redis", name, err)
		}
		// A reservation that timed out may have landed (go-redis reports
		// a dead Redis and a late reply alike, as the deadline), so it is
		// released by its token, within one more timeout.
		limit := timeout
		if name == "guard" {
			limit = 2 * timeout
		}
		if elapsed > limit+200*time.Millisecond {
			t.Errorf("%s took %v to fail, want within %v", name, elapsed, limit)
		}
	}

	srv.Restart()
	// The restarted Redis is empty (no persistence): conversation c is
	// unknown past step 1, so it fails closed until one ConversationTTL has
	// passed (TestLostDataFailsClosed); a new conversation recovers. The
	// budget's day window opened before the loss, so its counter is
	// refused as lost until the window ends (TestLostBudgetsFailClosed):
	// recovered means it says so instead of "unavailable". The bucket
	// counts as emptied at the loss, so it passes again within a second.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		conv = fmt.Sprint("c-after-restart-", i)
		errs := checkAll(1)
		if errors.Is(errs[1], ratelimit.ErrStateLost) {
			errs[1] = nil
		}
		if errors.Join(errs...) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 10s after restart: %v", errors.Join(errs...))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHungRedisTimesOut freezes redis-server (SIGSTOP): checks must fail
// closed at the configured timeout instead of hanging, and the caller's own
// deadline is honoured when shorter.
func TestHungRedisTimesOut(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv.Addr())
	const timeout = 250 * time.Millisecond
	s := newStore(t, c, &redisstore.Options{Timeout: timeout})
	r := ratelimit.MustParseRate("10/s")
	if _, err := s.Take(context.Background(), "k", r, time.Now()); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	defer srv.Resume()
	start := time.Now()
	res, err := s.Take(context.Background(), "k", r, time.Now())
	elapsed := time.Since(start)
	if res.Allowed || !errors.Is(err, ratelimit.ErrUnavailable) || !strings.Contains(err.Error(), "no answer within 250ms") {
		t.Fatalf("Take on a hung Redis: %+v, %v; want denied, ErrUnavailable naming the timeout", res, err)
	}
	if elapsed < timeout || elapsed > timeout+300*time.Millisecond {
		t.Fatalf("failed after %v, want about %v", elapsed, timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := s.Take(ctx, "k", r, time.Now()); !errors.Is(err, ratelimit.ErrUnavailable) {
		t.Fatalf("Take with a short caller deadline: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 200*time.Millisecond {
		t.Fatalf("caller deadline of 50ms ignored: failed after %v", elapsed)
	}
}

// TestNoGoroutineLeak: after many checks, failures and Close, the goroutine
// count returns to where it was.
func TestNoGoroutineLeak(t *testing.T) {
	srv := redistest.Start(t)
	before := runtime.NumGoroutine()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	s := newStore(t, c, &redisstore.Options{Timeout: 100 * time.Millisecond})
	r := ratelimit.MustParseRate("5/s")
	for i := range 200 {
		_, _ = s.Take(context.Background(), fmt.Sprint(i%7), r, time.Now())
	}
	srv.Pause()
	for range 5 {
		_, _ = s.Take(context.Background(), "k", r, time.Now())
	}
	srv.Resume()
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
