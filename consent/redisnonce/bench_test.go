package redisnonce_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent/redisnonce"
	"github.com/gatehouse-dev/gatehouse/internal/redistest"
)

// BenchmarkUse: one nonce consumed per op against a real redis-server on
// loopback, with the data-epoch check (one script) and without it
// (AcceptDataLoss: SET NX).
func BenchmarkUse(b *testing.B) {
	srv := redistest.Start(b)
	seq := 0
	for _, tc := range []struct {
		name string
		opts *redisnonce.Options
	}{{"marker", nil}, {"accept-data-loss", &redisnonce.Options{AcceptDataLoss: true, Prefix: "b2:"}}} {
		b.Run(tc.name, func(b *testing.B) {
			c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
			defer c.Close()
			s, err := redisnonce.New(context.Background(), c, tc.opts)
			if err != nil {
				b.Fatal(err)
			}
			_ = c.Set(context.Background(), s.MarkerKey(), "1", 0) // an old data epoch
			if err != nil {
				b.Fatal(err)
			}
			until := time.Now().Add(time.Hour)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				seq++
				if err := s.Use(context.Background(), "n_"+strconv.Itoa(seq), until); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
