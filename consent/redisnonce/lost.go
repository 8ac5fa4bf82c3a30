package redisnonce

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// ErrDataLost reports a nonce refused because the Redis lost its data
// (restarted without persistence, or flushed) less than one MaxValidity
// ago and the nonce's approval may have been used before the loss. It is
// returned wrapped together with [consent.ErrUnavailable].
var ErrDataLost = errors.New("redisnonce: redis lost its data")

// MarkerKey returns the key holding when this Redis's data began (no
// expiry): the prefix without its trailing ':' and "-marker", beside the
// nonce keys.
func (s *Store) MarkerKey() string {
	return strings.TrimSuffix(s.prefix, ":") + "-marker"
}

// useScript is Use with the data-epoch check. KEYS[1] the nonce, KEYS[2]
// the marker (microseconds since the Unix epoch, created when missing, the
// format of internal/redisx.Marker); ARGV[1] the key's TTL in ms, ARGV[2]
// the approval's time left on the caller's clock in µs, ARGV[3]
// MaxValidity in µs. It returns 1 fresh, 0 replayed, or -µs of the window
// left when the nonce's validity may have begun before the marker.
var useScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local m = redis.call('GET', KEYS[2])
if not m then
  redis.call('SET', KEYS[2], string.format('%.0f', now))
  m = now
elseif not string.match(m, '^%d+$') then
  return redis.error_reply('gatehouse: marker key ' .. KEYS[2] .. ' holds a non-integer')
else
  m = tonumber(m)
end
local left = m + tonumber(ARGV[3]) - now
if left > 0 and tonumber(ARGV[2]) < left then return -left end
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 1 end
return 0
`)

// useMarked consumes nonce unless the data epoch is younger than its
// validity may be old: valid_until - MaxValidity (the earliest the approval
// can have been given) before the marker's birth. Time left is measured on
// the caller's clock and the window on the server's, so skew cancels out.
func (s *Store) useMarked(ctx context.Context, nonce string, until time.Time, ttl time.Duration) error {
	left := until.Sub(s.now())
	r, err := useScript.Run(ctx, s.c, []string{s.prefix + nonce, s.MarkerKey()},
		strconv.FormatInt(ttl.Milliseconds(), 10), strconv.FormatInt(left.Microseconds(), 10),
		strconv.FormatInt(s.validity.Microseconds(), 10)).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("%w: redis: %w", consent.ErrUnavailable, err)
	case r == 0:
		return errReplayed()
	case r < 0:
		window := time.Duration(-r) * time.Microsecond
		return fmt.Errorf("%w: %w (restarted without persistence, or flushed) less than %v ago; "+
			"an approval given before that may already have been used, so it is refused for another %v: ask again then, "+
			"and run Redis with appendonly yes", consent.ErrUnavailable, ErrDataLost, s.validity, window.Round(time.Millisecond))
	}
	return nil
}
