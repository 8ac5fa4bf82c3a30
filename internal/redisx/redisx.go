// Package redisx holds what the Redis-backed stores of gatehouse share.
package redisx

import (
	"errors"
	"net"

	"github.com/redis/go-redis/v9"
)

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

// MayHaveRun reports whether a command that failed with err may have
// run in Redis, so that a store undoes what it may have written by the
// token it sent. Nearly any error may: go-redis resends a command whose
// connection reset or whose reply timed out (MaxRetries, default 3) and
// reports only the last attempt's error, so a late reply ends as
// context.DeadlineExceeded from the backoff before a resend (as a dead
// Redis does), and an error reply may answer a resend of a command that
// ran. Only a closed client sent nothing, and a last attempt that could
// not connect leaves nothing an undo could reach. A caller whose context
// was done before it called go-redis sent nothing and need not ask.
func MayHaveRun(err error) bool {
	var op *net.OpError
	return err != nil && !errors.Is(err, redis.ErrClosed) && !(errors.As(err, &op) && op.Op == "dial")
}
