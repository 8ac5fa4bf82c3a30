package redisstore_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
	"github.com/gatehouse-dev/gatehouse/ratelimit/redisstore"
)

// BenchmarkRedisAllow: Limiter.Allow over loopback with 16 parallel clients
// (SetParallelism so that GOMAXPROCS*p = 16), one EVALSHA per check.
func BenchmarkRedisAllow(b *testing.B) {
	_, s := benchStore(b)
	lim, _ := ratelimit.NewLimiter(ratelimit.Rate{N: 1 << 30, Per: time.Second}, &ratelimit.LimiterOptions{Store: s})
	ctx := context.Background()
	if _, err := lim.Allow(ctx, "warm"); err != nil {
		b.Fatal(err)
	}
	var id atomic.Int64
	b.SetParallelism(max(1, 16/procs()))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := "client-" + strconv.FormatInt(id.Add(1), 10)
		for pb.Next() {
			if _, err := lim.Allow(ctx, key); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "checks/s")
}

func procs() int { return runtime.GOMAXPROCS(0) }

// benchStore starts a redis-server and returns a client (a pool of 16
// connections, one per parallel benchmark client) and a Store on it.
func benchStore(b *testing.B) (*redis.Client, *redisstore.Store) {
	srv := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 16, ContextTimeoutEnabled: true})
	b.Cleanup(func() { c.Close() })
	s, err := redisstore.New(context.Background(), c, &redisstore.Options{Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	return c, s
}

// BenchmarkRedisBudgetCharge: Budget.Charge (an hourly and a daily
// counter) over loopback with 16 parallel clients, each its own agent.
func BenchmarkRedisBudgetCharge(b *testing.B) {
	_, s := benchStore(b)
	bud, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 1 << 40, RequestsPerDay: 1 << 40}, &ratelimit.BudgetOptions{Store: s})
	ctx := context.Background()
	var id atomic.Int64
	b.SetParallelism(max(1, 16/procs()))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		agent := "agent-" + strconv.FormatInt(id.Add(1), 10)
		for pb.Next() {
			if err := bud.Charge(ctx, agent, ratelimit.Usage{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "charges/s")
}

// BenchmarkRedisGuardStep: Guard.Begin and Commit of the next step (two
// script calls) over loopback with 16 parallel clients, each its own
// conversation.
func BenchmarkRedisGuardStep(b *testing.B) {
	_, s := benchStore(b)
	g, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: s, MaxSteps: 1 << 40})
	ctx := context.Background()
	var id atomic.Int64
	b.SetParallelism(max(1, 16/procs()))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		agent := "agent-" + strconv.FormatInt(id.Add(1), 10)
		for step := int64(1); pb.Next(); step++ {
			r, err := g.Begin(ctx, ratelimit.Action{Agent: agent, ConversationID: "c", Step: step, Tool: "t", Args: map[string]any{"n": step}})
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// BenchmarkRedisBudgetChargeServer: the Redis CPU time of one budget charge
// script (INFO commandstats, evalsha usec_per_call), free of the client
// side's noise on a shared machine: 16 agents charged in turn, each with an
// hourly and a daily counter.
func BenchmarkRedisBudgetChargeServer(b *testing.B) {
	c, s := benchStore(b)
	bud, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerHour: 1 << 40, RequestsPerDay: 1 << 40}, &ratelimit.BudgetOptions{Store: s})
	ctx := context.Background()
	agents := make([]string, 16)
	for i := range agents {
		agents[i] = "agent-" + strconv.Itoa(i)
		if err := bud.Charge(ctx, agents[i], ratelimit.Usage{}); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := bud.Charge(ctx, agents[i%len(agents)], ratelimit.Usage{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	_, rest, ok := strings.Cut(info, "cmdstat_evalsha:")
	_, rest, ok2 := strings.Cut(rest, "usec_per_call=")
	us, _, _ := strings.Cut(rest, ",")
	v, err := strconv.ParseFloat(us, 64)
	if !ok || !ok2 || err != nil {
		b.Fatalf("no evalsha usec_per_call in INFO commandstats: %q", info)
	}
	b.ReportMetric(v, "redis-µs/charge")
}
