package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/redisx"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// DefaultRecheck is how often a Store reads INFO again when
// Options.Recheck is zero.
const DefaultRecheck = time.Minute

// recheck repeats the server check of New at most once per s.recheckEvery,
// on the request path (a Store starts no goroutines): an operator who
// switches maxmemory-policy to an evicting one, or turns AOF off under
// RequireDurable, after New would otherwise go unnoticed while victims'
// state is evicted. Until a later check passes, every call fails closed
// with the reason. One request per interval pays one INFO round trip.
func (s *Store) recheck(ctx context.Context) error {
	now := time.Now().UnixNano()
	next := s.nextCheck.Load()
	if now >= next && s.nextCheck.CompareAndSwap(next, now+int64(s.recheckEvery)) {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		_, err := redisx.Check(cctx, s.c, s.healthOpts)
		cancel()
		switch {
		case err == nil:
			s.healthErr.Store(nil)
		case ctx.Err() != nil:
			// The caller gave up: nothing learned about the server.
			s.nextCheck.Store(now)
		default:
			e := fmt.Errorf("%w: redis server check: %w", ratelimit.ErrUnavailable, err)
			s.healthErr.Store(&e)
		}
	}
	if e := s.healthErr.Load(); e != nil {
		return *e
	}
	return nil
}
