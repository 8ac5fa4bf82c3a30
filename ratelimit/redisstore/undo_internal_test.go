package redisstore

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redistest"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// slowConn delays by 400ms the reply to the next EVALSHA it sends once
// script is set, and to the next INFO command (not CLIENT SETINFO) once
// info is set: a hiccup of the network that lasts two round trips.
type slowConn struct {
	net.Conn
	script, info *atomic.Bool
	due          atomic.Bool
}

func (c *slowConn) Write(b []byte) (int, error) {
	low := bytes.ToLower(b)
	if (bytes.Contains(low, []byte("evalsha")) && c.script.CompareAndSwap(true, false)) ||
		(bytes.Contains(low, []byte("$4\r\ninfo\r\n")) && c.info.CompareAndSwap(true, false)) {
		c.due.Store(true)
	}
	return c.Conn.Write(b)
}

func (c *slowConn) Read(b []byte) (int, error) {
	if c.due.CompareAndSwap(true, false) {
		time.Sleep(400 * time.Millisecond)
	}
	return c.Conn.Read(b)
}

// A charge whose reply came late, when the periodic server check
// (Options.Recheck) fell due before its uncharge: the check's INFO came
// late too, the store failed closed, and the uncharge was refused with
// everything else, although Redis would have run it: the denied call
// stayed charged (red team rtp). Taking back what may have landed (an
// uncharge, a reservation's release) only lowers state, so it no longer
// waits on the check; new writes still fail closed.
func TestUnchargeIsNotHeldByTheServerCheck(t *testing.T) {
	srv := redistest.Start(t)
	var script, info atomic.Bool
	c := redis.NewClient(&redis.Options{
		Addr: srv.Addr(), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &slowConn{Conn: conn, script: &script, info: &info}, nil
		},
	})
	t.Cleanup(func() { c.Close() })
	s, err := New(context.Background(), c, &Options{Prefix: "undocheck:", Timeout: 200 * time.Millisecond, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	counters := func(add int64) []ratelimit.Counter {
		return []ratelimit.Counter{{Name: "requests", Add: add, Max: 10, TTL: time.Hour}}
	}
	value := func() int64 {
		t.Helper()
		res, err := s.Spend(ctx, "agent", counters(0), ratelimit.SpendCheck, now)
		if err != nil {
			t.Fatal(err)
		}
		return res.Values[0]
	}
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); err != nil {
		t.Fatal(err)
	}
	// The check falls due while the charge waits for its reply.
	s.nextCheck.Store(time.Now().Add(100 * time.Millisecond).UnixNano())
	script.Store(true)
	info.Store(true)
	if _, err := s.Spend(ctx, "agent", counters(2), ratelimit.SpendCommit, now); err == nil {
		t.Fatal("a charge whose reply came late succeeded")
	}
	// The failed check fails every call closed until the next one passes.
	if _, err := s.Spend(ctx, "agent", counters(1), ratelimit.SpendCommit, now); err == nil {
		t.Fatal("a charge after a failed server check succeeded")
	}
	s.nextCheck.Store(0)
	if got := value(); got != 1 {
		t.Fatalf("requests %d after a denied charge, want 1 (taken back)", got)
	}
}
