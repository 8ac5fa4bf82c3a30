package redisgrant_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/grant/granttest"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// BenchmarkRedisConsume: the grant lookup of an ask against a real
// redis-server on loopback: HGETALL of the principal's 5 grants (the test cap), matched
// here, and one script that takes the use (unlimited, so it never runs
// out).
func BenchmarkRedisConsume(b *testing.B) {
	srv := redistest.Start(b)
	st := newStoreTB(b, srv.Addr())
	ctx := context.Background()
	now := granttest.T0
	for i := range 5 {
		g, err := grant.New(grant.Scope{ID: "h", Duration: time.Hour}, grant.Binding{Principal: "user:alice", Tool: "deploy", Digest: "d"},
			map[string]string{"env": fmt.Sprintf(`"env-%d"`, i)}, nil, grant.AttestedHuman, now)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Create(ctx, g, now); err != nil {
			b.Fatal(err)
		}
	}
	q := grant.Query{Principal: "user:alice", Tool: "deploy", Digest: "d", Args: map[string]string{"env": `"env-4"`}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := st.Consume(ctx, q, now); err != nil {
				b.Fatal(err)
			}
		}
	})
}
