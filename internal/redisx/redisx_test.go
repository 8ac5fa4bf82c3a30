package redisx_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redisx"
)

func TestHonoursDeadlines(t *testing.T) {
	cases := []struct {
		c    any
		want bool
	}{
		{redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), false},
		{redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}), true},
		{redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}}), false},
		{redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, ContextTimeoutEnabled: true}), true},
		{redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}}), false},
		{redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}, ContextTimeoutEnabled: true}), true},
		{struct{}{}, true},
	}
	for i, c := range cases {
		if got := redisx.HonoursDeadlines(c.c); got != c.want {
			t.Errorf("case %d (%T): %v, want %v", i, c.c, got, c.want)
		}
	}
}
