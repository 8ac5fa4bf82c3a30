package redisstore

import (
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Per-store caps on live identities in Redis (issue 17 fault 2, DESIGN §3
// item 15). Client names are self-declared, so one attacker can be many
// identities; without caps their keys fill Redis to maxmemory, where
// noeviction refuses every write, for every agent. Each kind of state has
// an index, a sorted set under the prefix, and a new identity past the cap
// makes room the way the memory store does:
//
//   - buckets (ix:r, scored by when each is back to half full): the
//     fullest buckets holding at least half their tokens are evicted, up
//     to 8 at once; a full bucket is the same as an absent one (lossless),
//     any other gives its owner back at most half its rate. Refused only
//     when every bucket is more than half empty.
//   - budget scopes (ix:b, scored by when their last counter expires, and
//     ix:bu, scored by the largest share of a limit the scope's counters
//     had spent at its last charge, 1 for a counter without a limit, in
//     64ths rounded up): scopes whose counters all expired are dropped
//     first, then the least used, nothing spent first, as many as the new
//     scope needs (at most 8 at once), each only if its live counters
//     spent at most half of every limit: its owner regains at most what it
//     had spent, and a near-limit budget is never evicted. Each candidate
//     is judged on its counters as they are (refunds, and charges by
//     replicas without caps, included; a counter is live while its key
//     exists), found through its record (bm:{scope}: counter key -> limit,
//     written by the charge script in the same call), so nothing is
//     scanned. When none of the 8 least used by ix:bu qualifies any more
//     (a level there may be stale), 8 scopes sampled at random are judged
//     too (a counter over half may have ended with its window). Refused
//     only when none qualifies. Resetting one's own budget this way costs
//     an attacker about as many identities as the cap, each spending at
//     least half its budget (less used scopes go first), for at most half
//     a budget back.
//   - conversations (ix:c, scored by expiry): expired ones first
//     (lossless), then the least recently active, up to 8 at once: one
//     with only a reservation (nothing committed, nothing to replay;
//     its commit still works) without a trace, others each leaving a
//     tombstone (tomb:c: 16 hex digits of SHA-1 of its key,
//     scored by its expiry) that refuses the conversation at every step
//     with CodeStateLost, so its owner loses the conversation but never
//     its replay protection. Tombstones are capped at tombsPerConv times
//     MaxConversations; when none has expired new conversations are
//     refused as capacity.
//
// The scripts delete evicted keys named in the index, which Redis Cluster
// cannot do in one script: the caps need one server, and Cluster and Ring
// need Options.AcceptIdentityFlood.

// Default caps of live identities.
const (
	DefaultMaxRateKeys      = 100_000
	DefaultMaxBudgetScopes  = 100_000
	DefaultMaxConversations = 100_000
)

// tombsPerConv sizes the tombstones as in the memory store.
const tombsPerConv = 4

// The scripts' admission functions (after the prelude), each script
// defining only those it calls: Redis runs a script's whole text, function
// definitions included, on every call.
const tombLua = `
local function tomb(key)
  return string.sub(redis.sha1hex(key), 1, 16)
end
local function tombstoned(tk, key)
  local ts = redis.call('ZSCORE', tk, tomb(key))
  return ts and tonumber(ts) > now
end
`

const bucketLua = `
-- admitBucket indexes bucket key (v its value, nil when absent) at score,
-- when back to half full; at the cap it evicts buckets at least half full.
local function admitBucket(ik, cap, key, v, score)
  if not v and redis.call('ZSCORE', ik, key) == false and redis.call('ZCARD', ik) >= cap then
    local c = redis.call('ZRANGEBYSCORE', ik, '-inf', now, 'LIMIT', 0, 8)
    if #c == 0 then
      return false
    end
    for _, m in ipairs(c) do
      redis.call('DEL', m)
    end
    redis.call('ZREM', ik, unpack(c))
  end
  redis.call('ZADD', ik, score, key)
  return true
end
`

const scopeLua = `
-- A scope's record (bm:{scope}) maps each of its counter keys to the
-- counter's limit at its last charge (as the caller sent it), and the
-- field '=' to its level as last written to uk. A counter is live while
-- its key exists (it expires with its window). A level is a share of a
-- limit (1 for anything spent without one) rounded up to 1/64, as an
-- integer 0 to 64: at most half is at most 32, and a charge rewrites uk
-- only when the level changes.
local function level(u)
  return math.min(64, math.ceil(u * 64))
end
-- scopeLib builds the helpers that read a record's other counters and
-- evict scopes, only when needed: Redis instantiates every function a
-- script defines on every call.
local function scopeLib()
  local L = {}
  -- live is the share counter f of record rk (limit v) spent, read from
  -- the counter itself (refunds and charges by any replica included), or
  -- nil once it expired.
  function L.live(rk, f, v)
    local max = num(v, rk, 'limit of ' .. f)
    local c = redis.call('GET', f)
    if not c then
      return nil
    end
    c = int(c, f, 'counter')
    if c <= 0 then
      return 0
    end
    return max > 0 and c / max or 1
  end
  -- drop deletes budget scope m: the counters its record rk names, the
  -- record and its entries in both indexes.
  function L.drop(ik, uk, m, rk)
    for _, k in ipairs(redis.call('HKEYS', rk)) do
      if k ~= '=' then
        redis.call('DEL', k)
      end
    end
    redis.call('DEL', rk)
    redis.call('ZREM', ik, m)
    redis.call('ZREM', uk, m)
  end
  -- evict judges members ms of uk in order on their live counters, as the
  -- memory store does, until it has evicted need of those that spent at
  -- most half of every limit, writing the others' level back when it
  -- changed; it returns how many it evicted.
  function L.evict(ik, uk, ms, need, prefix)
    local freed = 0
    for _, m in ipairs(ms) do
      if freed == need then
        break
      end
      local rk = prefix .. 'bm:{' .. m .. '}'
      local rec, u, old = redis.call('HGETALL', rk), 0, nil
      for j = 1, #rec, 2 do
        if rec[j] == '=' then
          old = rec[j + 1]
        else
          u = math.max(u, L.live(rk, rec[j], rec[j + 1]) or 0)
        end
      end
      if u <= 0.5 then
        L.drop(ik, uk, m, rk)
        freed = freed + 1
      elseif #rec > 0 and tonumber(old) ~= level(u) then
        redis.call('ZADD', uk, level(u), m)
        redis.call('HSET', rk, '=', level(u))
      end
    end
    return freed
  end
  return L
end
-- scopeShare reads the scope's record rk and returns the scope's level
-- once the call's n counters (values out[i + 2] before the call) are
-- written, the level last written and the record's fields to write (a new
-- counter or a changed limit) and to delete (expired counters).
local function scopeShare(rk, n, out)
  local raw, u, old, was, gone, lib = redis.call('HGETALL', rk), 0, nil, {}, {}, nil
  for j = 1, #raw, 2 do
    local f, own = raw[j], false
    if f == '=' then
      old, own = tonumber(raw[j + 1]), true
    end
    for i = 1, n do
      if not own and KEYS[i] == f then
        was[i], own = raw[j + 1], true
      end
    end
    if not own then
      lib = lib or scopeLib()
      local s = lib.live(rk, f, raw[j + 1])
      if s then
        u = math.max(u, s)
      else
        gone[#gone + 1] = f
      end
    end
  end
  local set = {}
  for i = 1, n do
    local max, v = tonumber(ARGV[4 * i + 4]), out[i + 2] + tonumber(ARGV[4 * i + 3])
    if v > 0 then
      u = math.max(u, max > 0 and v / max or 1)
    end
    if was[i] ~= ARGV[4 * i + 4] then
      set[#set + 1], set[#set + 2] = KEYS[i], ARGV[4 * i + 4]
    end
  end
  return level(u), old, set, gone
end
-- admitScope indexes a new budget scope until exp (ik) at level q (uk),
-- or extends an indexed one's exp; it returns 1 when the scope is new, 0
-- when it was indexed, false when refused. At the cap it drops scopes
-- whose counters all expired, then evicts the least used by uk (as many
-- as it takes, at most 8), each only if its live counters spent at most
-- half of every limit; uk holds levels as of each scope's last charge, so
-- when none of the 8 least used qualifies any more, 8 scopes sampled at
-- random are judged too. exp is the end of the longest window rounded up
-- to the millisecond, so a scope indexed within a millisecond of it is not
-- written again.
local function admitScope(ik, uk, cap, scope, exp, q, prefix)
  local sc = redis.call('ZSCORE', ik, scope)
  if sc then
    if tonumber(sc) < exp - 1000 then
      redis.call('ZADD', ik, exp, scope)
    end
    return 0
  end
  if redis.call('ZCARD', ik) >= cap then
    local lib = scopeLib()
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', ik, '-inf', now, 'LIMIT', 0, 64)) do
      lib.drop(ik, uk, m, prefix .. 'bm:{' .. m .. '}')
    end
    local need = math.min(redis.call('ZCARD', ik) - cap + 1, 8)
    if need > 0 then
      local ms = redis.call('ZRANGEBYSCORE', uk, '-inf', 32, 'LIMIT', 0, 8)
      if lib.evict(ik, uk, ms, need, prefix) == 0 and lib.evict(ik, uk, redis.call('ZRANDMEMBER', uk, 8), need, prefix) == 0 then
        return false
      end
    end
  end
  redis.call('ZADD', ik, exp, scope)
  redis.call('ZADD', uk, q, scope)
  return 1
end
`

const convLua = tombLua + `
-- convKeyOf is the conversation key of index member m.
local function convKeyOf(m, prefix)
  local sep = string.find(m, ':', 1, true)
  local n = tonumber(string.sub(m, 1, sep - 1))
  local scope = string.sub(m, sep + n + 1)
  return prefix .. 'c:{' .. string.sub(m, sep + 1, sep + n) .. '}' .. #scope .. ':' .. scope
end
-- dropConv deletes the conversation of index member m ("<len>:<owner><scope>",
-- see convMember) and its entry in its owner's set; it reports whether the
-- conversation had committed steps.
local function dropConv(m, prefix)
  local sep = string.find(m, ':', 1, true)
  local n = tonumber(string.sub(m, 1, sep - 1))
  local owner = string.sub(m, sep + 1, sep + n)
  local scope = string.sub(m, sep + n + 1)
  local ck = convKeyOf(m, prefix)
  local committed = redis.call('HEXISTS', ck, 'last') == 1
  redis.call('DEL', ck)
  redis.call('ZREM', prefix .. 'o:{' .. owner .. '}', scope)
  return committed
end
-- admitConv indexes conversation member key until exp; at the cap it
-- drops expired ones, then the least recently active: one with no
-- committed step (only a reservation: nothing to replay) without a trace,
-- one with committed steps leaving a tombstone while there is room for one.
local function admitConv(ik, tk, cap, tcap, key, exp, prefix)
  if redis.call('ZSCORE', ik, key) == false and redis.call('ZCARD', ik) >= cap then
    local gone = redis.call('ZRANGEBYSCORE', ik, '-inf', now, 'LIMIT', 0, 64)
    for _, m in ipairs(gone) do
      dropConv(m, prefix)
      redis.call('ZREM', ik, m)
    end
    if redis.call('ZCARD', ik) >= cap then
      redis.call('ZREMRANGEBYSCORE', tk, '-inf', now)
      local room = tcap - redis.call('ZCARD', tk)
      local c = redis.call('ZRANGE', ik, 0, 7, 'WITHSCORES')
      local freed = false
      for j = 1, #c, 2 do
        if room > 0 or redis.call('HEXISTS', convKeyOf(c[j], prefix), 'last') == 0 then
          if dropConv(c[j], prefix) then
            redis.call('ZADD', tk, c[j + 1], tomb(c[j]))
            room = room - 1
          end
          redis.call('ZREM', ik, c[j])
          freed = true
        end
      end
      if not freed then
        return false
      end
    end
  end
  redis.call('ZADD', ik, exp, key)
  return true
end
`

func (s *Store) rateIndex() string  { return s.prefix + "ix:r" }
func (s *Store) scopeIndex() string { return s.prefix + "ix:b" }
func (s *Store) scopeUsed() string  { return s.prefix + "ix:bu" }
func (s *Store) convIndex() string  { return s.prefix + "ix:c" }
func (s *Store) tombs() string      { return s.prefix + "tomb:c" }

// scopeRecord names a budget scope's counter keys with their limits (the
// same hash tag as its counters).
func (s *Store) scopeRecord(scope string) string {
	return s.prefix + "bm:{" + scope + "}"
}

// convMember is a conversation's member in the index: its owner's length,
// its owner and its scope, from which the scripts rebuild the keys an
// eviction deletes (the conversation and its entry in its owner's set).
func convMember(scope string) string {
	owner := ratelimit.Owner(scope)
	return strconv.Itoa(len(owner)) + ":" + owner + scope
}

// setCaps reads the caps of opts (nil: defaults). With AcceptIdentityFlood
// every cap is 0: off.
func (s *Store) setCaps(c Client, opts *Options) error {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.MaxRateKeys < 0 || o.MaxBudgetScopes < 0 || o.MaxConversations < 0 {
		return fmt.Errorf("%w: redisstore Options has MaxRateKeys %d, MaxBudgetScopes %d, MaxConversations %d; want >= 0 (0 means default)",
			ratelimit.ErrInvalidOptions, o.MaxRateKeys, o.MaxBudgetScopes, o.MaxConversations)
	}
	if o.AcceptIdentityFlood {
		return nil
	}
	switch c.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return fmt.Errorf("%w: redisstore.New: the caps on live identities evict keys across slots, which Redis Cluster and Ring cannot do in one script; set Options.AcceptIdentityFlood to use them (a flood of distinct identities is then bounded by maxmemory only)", ratelimit.ErrInvalidOptions)
	}
	s.rateCap = orDefault(o.MaxRateKeys, DefaultMaxRateKeys)
	s.budCap = orDefault(o.MaxBudgetScopes, DefaultMaxBudgetScopes)
	s.convCap = orDefault(o.MaxConversations, DefaultMaxConversations)
	return nil
}

// boxedArgs are script arguments fixed at New, converted to interfaces
// once instead of on every call (one allocation each).
type boxedArgs struct {
	known, prefix                     any
	rateCap, budCap, convCap, tombCap any
}

func (s *Store) box() {
	s.boxed = boxedArgs{known: s.known, prefix: s.prefix,
		rateCap: s.rateCap, budCap: s.budCap, convCap: s.convCap, tombCap: s.convCap * tombsPerConv}
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

func (s *Store) rateCapacity() error {
	return &ratelimit.CapacityError{What: "live rate keys in redis", Cap: "redisstore Options.MaxRateKeys", Limit: s.rateCap,
		Hint: "every tracked key has spent more than half of its rate; retry after one period or raise the cap (with maxmemory to match)"}
}

func (s *Store) scopeCapacity() error {
	return &ratelimit.CapacityError{What: "agents with live budget counters in redis", Cap: "redisstore Options.MaxBudgetScopes", Limit: s.budCap,
		Hint: "every tracked agent has spent more than half of a limit (those are never evicted); new agents are served once counters end with their window, or raise the cap (with maxmemory to match)"}
}

func (s *Store) convCapacity() error {
	return &ratelimit.CapacityError{What: "live conversations in redis", Cap: "redisstore Options.MaxConversations", Limit: s.convCap,
		Hint: fmt.Sprintf("the %d most recently evicted conversations are still remembered as tombstones; retry once conversations expire, or raise the cap (with maxmemory to match)", s.convCap*tombsPerConv)}
}
