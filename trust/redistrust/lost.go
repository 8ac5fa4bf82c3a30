package redistrust

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redisx"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// Lost data (issue 17 fault 5, DESIGN §3 item 15). A Redis restarted
// without persistence, or flushed, forgets every agent's state, and an
// agent without state is at Default: with a Default above Untrusted, an
// agent degraded for a protected-path attempt, or suspended, came back
// trusted, silently. New reads or creates a marker key without expiry,
// <Prefix>marker (the format of internal/redisx.Marker); a script that
// finds it missing, or younger than the one its store read, records the
// loss in <Prefix>lost. For one TTL after a loss (the longest any lost
// state would have lived), an agent without state is at most Untrusted:
// every action needs a human's consent. A fresh Redis is no loss.

// defLua sets def, the level of an agent without state: ARGV[1], or at
// most untrusted (0) when KEYS[1] is absent and this Redis lost its data
// less than ARGV[2] ms ago. cdef is ARGV[1] itself.
const defLua = `
local cdef = tonumber(ARGV[1])
local def = cdef
if ARGV[4] ~= '' and def > 0 and redis.call('EXISTS', KEYS[1]) == 0 then
  local t = redis.call('TIME')
  local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local function int(v, k)
    if not string.match(v, '^%d+$') then
      error({err = 'gatehouse: ' .. k .. ' holds a non-integer; the state is corrupt, so the request is denied'})
    end
    return tonumber(v)
  end
  local m, l = redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3])
  if l then
    l = int(l, KEYS[3])
  end
  if not m then
    m = string.format('%.0f', us)
    redis.call('SET', KEYS[2], m)
    redis.call('SET', KEYS[3], m)
    l = us
  elseif int(m, KEYS[2]) > tonumber(ARGV[4]) and (not l or l < tonumber(m)) then
    redis.call('SET', KEYS[3], m)
    l = tonumber(m)
  end
  if l and us - l < tonumber(ARGV[2]) * 1000 then
    def = 0
  end
end
`

func (s *Store) marker() string { return s.o.Prefix + "marker" }
func (s *Store) lost() string   { return s.o.Prefix + "lost" }

// mark reads or creates the marker (unless AcceptDataLoss); Cluster and
// Ring need AcceptDataLoss, as the marker is on one server.
func (s *Store) mark(ctx context.Context, c Client) error {
	if s.o.AcceptDataLoss {
		return nil
	}
	switch c.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return fmt.Errorf("%w: redistrust.New: lost-data detection needs one marker per server, which Redis Cluster and Ring cannot give; set Options.AcceptDataLoss to use them", trust.ErrInvalidOptions)
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	m, err := redisx.Marker(ctx, c, s.marker())
	if err != nil {
		return fmt.Errorf("%w: redistrust.New: %w", trust.ErrUnavailable, err)
	}
	s.known = strconv.FormatInt(m.Born.UnixMicro(), 10)
	return nil
}
