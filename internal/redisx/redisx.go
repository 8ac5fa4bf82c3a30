// Package redisx holds what the Redis-backed stores of gatehouse share.
package redisx

import "github.com/redis/go-redis/v9"

// HonoursDeadlines reports whether a go-redis client passes context
// deadlines to the network: *redis.Client, *redis.ClusterClient and
// *redis.Ring only do when created with ContextTimeoutEnabled, and without
// it a hung Redis blocks a call past any timeout (seen: 5 s). Other
// implementations are assumed to honour them.
func HonoursDeadlines(c any) bool {
	switch c := c.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return true
}
