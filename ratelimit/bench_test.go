package ratelimit_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// BenchmarkAllowHotKey: every goroutine hits one key (the worst case for
// lock contention). Target: <= 100 ns/op, 0 allocs.
func BenchmarkAllowHotKey(b *testing.B) {
	lim, _ := ratelimit.NewLimiter(ratelimit.Rate{N: 1 << 30, Per: time.Second}, nil)
	ctx := context.Background()
	now := t0
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := lim.AllowAt(ctx, "hot", now); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAllowManyKeys spreads calls over 10,000 existing keys.
func BenchmarkAllowManyKeys(b *testing.B) {
	lim, _ := ratelimit.NewLimiter(ratelimit.MustParseRate("100/s"), nil)
	ctx := context.Background()
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = "key-" + strconv.Itoa(i)
		lim.AllowAt(ctx, keys[i], t0)
	}
	var seq atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := seq.Add(1_000_003)
		for pb.Next() {
			i++
			lim.AllowAt(ctx, keys[i%uint64(len(keys))], t0)
		}
	})
}

// BenchmarkGuardBeginCommit: one Begin and one Commit per op, each goroutine
// in its own conversation. Target: <= 1 µs.
func BenchmarkGuardBeginCommit(b *testing.B) {
	g, _ := ratelimit.NewGuard(&ratelimit.GuardOptions{MaxSteps: 1 << 62, MaxRepeats: 1 << 30})
	ctx := context.Background()
	args := map[string]any{"path": "/var/log/app.log", "lines": 100}
	var conv atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		a := ratelimit.Action{Agent: "agent", ConversationID: "conv-" + strconv.FormatInt(conv.Add(1), 10), Tool: "read_file", Args: args}
		for pb.Next() {
			a.Step++
			r, err := g.Begin(ctx, a)
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFingerprint(b *testing.B) {
	args := map[string]any{"path": "/var/log/app.log", "lines": 100}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ratelimit.FingerprintOf("read_file", args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBudgetCharge(b *testing.B) {
	bud, _ := ratelimit.NewBudget(ratelimit.Limits{RequestsPerDay: 1 << 60, CostPerDay: 1e9}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := bud.Charge(ctx, "agent", ratelimit.Usage{Cost: 0.001, Tokens: 10}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
