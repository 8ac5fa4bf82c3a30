package redistrust

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/trust"
)

// The cap on agents with state (DESIGN §3 item 15). The guard records
// every call's outcome, and client names are self-declared, so one client
// calling under many names made one hash per name, each kept for the TTL
// (30 days by default): enough names fill maxmemory, where noeviction
// refuses every write of everything sharing the Redis. Each agent with
// state is indexed (<Prefix>ix, a sorted set scored by its last change in
// server milliseconds); a new agent past MaxAgents makes room as the
// memory store does: index entries past the TTL are dropped (their hashes
// expired), then among the 64 least recently changed and 64 sampled at
// random, an agent at the Default level is evicted, the one with the
// fewest denials in its window (any with none at once). That loses only a
// partial window of counts, never a level: an agent set or degraded is
// never evicted, and when none can be, the change is refused with
// trust.ErrCapacity.

// DefaultMaxAgents is the cap when Options.MaxAgents is 0.
const DefaultMaxAgents = 100_000

// refusedAtCap is the write scripts' answer when no agent can be evicted.
const refusedAtCap = -100

// admitLua runs in every write script after defLua: ARGV[2] ttl_ms,
// ARGV[3] cap; KEYS[1] the agent, the index last. An agent at the
// configured default (cdef) or at the one an agent without state gets now
// (def, lower after a loss) may be evicted: it comes back no higher.
const admitLua = `
if tonumber(ARGV[3]) > 0 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local ik, cap = KEYS[#KEYS], tonumber(ARGV[3])
  if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('ZSCORE', ik, KEYS[1]) == false then
    redis.call('ZREMRANGEBYSCORE', ik, '-inf', now - tonumber(ARGV[2]))
    if redis.call('ZCARD', ik) >= cap then
      local victim, best = nil, nil
      local function judge(ms)
        for _, m in ipairs(ms) do
          local st = redis.call('HMGET', m, 'level', 'denials')
          if not st[1] then
            victim, best = m, -1
            return
          end
          local lv = tonumber(st[1])
          if lv == cdef or lv == def then
            local d = tonumber(st[2]) or 0
            if not best or d < best then
              victim, best = m, d
            end
            if d == 0 then
              return
            end
          end
        end
      end
      judge(redis.call('ZRANGE', ik, 0, 63))
      if not best or best > 0 then
        judge(redis.call('ZRANDMEMBER', ik, 64))
      end
      if not victim then
        return ` + "-100" + `
      end
      redis.call('DEL', victim)
      redis.call('ZREM', ik, victim)
    end
  end
  redis.call('ZADD', ik, now, KEYS[1])
end
`

func (s *Store) index() string { return s.o.Prefix + "ix" }

func (s *Store) capacity() error {
	return fmt.Errorf("%w: %d agents with trust state in redis, none at the default level (set or degraded agents are never evicted); raise redistrust Options.MaxAgents (with maxmemory to match)", trust.ErrCapacity, s.cap)
}

// capOf is the cap of o: 0 with AcceptIdentityFlood, an error for a
// Cluster or Ring client without it.
func capOf(c Client, o Options) (int, error) {
	if o.AcceptIdentityFlood {
		return 0, nil
	}
	switch c.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return 0, fmt.Errorf("%w: redistrust.New: the cap on agents evicts keys across slots, which Redis Cluster and Ring cannot do in one script; set Options.AcceptIdentityFlood to use them", trust.ErrInvalidOptions)
	}
	if o.MaxAgents > 0 {
		return o.MaxAgents, nil
	}
	return DefaultMaxAgents, nil
}
