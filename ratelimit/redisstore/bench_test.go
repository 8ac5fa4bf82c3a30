package redisstore_test

import (
	"context"
	"runtime"
	"strconv"
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
	srv := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 16, ContextTimeoutEnabled: true})
	defer c.Close()
	s, err := redisstore.New(context.Background(), c, &redisstore.Options{Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
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
