package redisx_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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

// MayHaveRun: go-redis reports the last attempt's error only, so every
// error of a command handed to it may follow an attempt that ran (a late
// reply ends as context.DeadlineExceeded once go-redis retries it); a
// closed client sent nothing, and after a failed dial an undo cannot
// connect either (red team rtp).
func TestMayHaveRun(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{redis.ErrClosed, false},
		{fmt.Errorf("wrapped: %w", redis.ErrClosed), false},
		{context.DeadlineExceeded, true},
		{context.Canceled, true},
		{io.EOF, true},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, false},
		{fmt.Errorf("%w: %w", context.DeadlineExceeded, &net.OpError{Op: "dial", Err: errors.New("i/o timeout")}), false},
		{&net.OpError{Op: "read", Err: errors.New("i/o timeout")}, true},
		{redis.ErrPoolTimeout, true},
	}
	for i, c := range cases {
		if got := redisx.MayHaveRun(c.err); got != c.want {
			t.Errorf("case %d (%v): %v, want %v", i, c.err, got, c.want)
		}
	}
}
