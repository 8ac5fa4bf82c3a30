// Package redisx holds what the Redis-backed stores of gatehouse share.
package redisx

import (
	"errors"
	"io"
	"net"
	"syscall"

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

// ReplyLost reports whether err came while reading a reply: the command
// was written and Redis may have run it, so a store undoes what it may
// have written by the token it sent. A refused dial, a pool timeout or a
// cancelled context sent nothing; an error reply is Redis's answer.
func ReplyLost(err error) bool {
	var re redis.Error
	if errors.As(err, &re) {
		return false
	}
	var op *net.OpError
	return (errors.As(err, &op) && op.Op == "read") || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
