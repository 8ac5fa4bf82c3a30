package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts run atomically in Redis: every check-and-write below is one
// EVALSHA, so no other client can act between the read and the write. Times
// are microseconds from the caller's clock; TTLs are milliseconds.

// rateScript is GCRA, the generic cell rate algorithm: the key holds the
// theoretical arrival time (TAT) of the next event. With period P and N
// events per period, one event costs T = P/N; an event at now is allowed
// when TAT + T - P <= now. That is a token bucket of capacity N that starts
// full, the same behaviour as the in-memory x/time/rate buckets.
//
// KEYS[1] bucket; ARGV now_us, period_us, n, slack_ms.
// Returns {allowed 0|1, whole tokens left, retry_after_us}.
var rateScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local t = per / n
local tat = now
local v = redis.call('GET', KEYS[1])
if v then
  tat = math.max(tonumber(v), now)
end
local new = tat + t
local allow_at = new - per
if now < allow_at then
  return {0, math.floor((now - (tat - per)) / t), math.ceil(allow_at - now)}
end
redis.call('SET', KEYS[1], string.format('%.17g', new), 'PX', math.ceil((new - now) / 1000) + tonumber(ARGV[4]))
return {1, math.floor((now - allow_at) / t), 0}
`)

// budgetScript applies counters all or nothing.
//
// KEYS[i] counter i; ARGV[1] mode (1 check, 2 commit, 3 force), then per
// counter add, max, ttl_ms. Returns {failed index (0-based) or -1, values
// before the call...}.
var budgetScript = redis.NewScript(`
local mode = tonumber(ARGV[1])
local out = {-1}
for i = 1, #KEYS do
  local v = tonumber(redis.call('GET', KEYS[i]) or '0')
  out[i + 1] = v
  local add, max = tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  if out[1] < 0 and max > 0 and v + add > max then
    out[1] = i - 1
  end
end
if mode == 3 or (mode == 2 and out[1] < 0) then
  for i = 1, #KEYS do
    redis.call('INCRBY', KEYS[i], ARGV[3 * i - 1])
    redis.call('PEXPIRE', KEYS[i], ARGV[3 * i + 1])
  end
end
return out
`)

// reserveScript reserves one step (SET NX semantics, with a logical expiry
// from the caller's clock so memory and Redis expire reservations alike).
//
// KEYS[1] conversation hash {last, fp, rep}; KEYS[2] the step's reservation.
// ARGV step, fp, max_repeats, now_us, ttl_us, token, px_ms.
// Returns {status, last committed, repeats} with status 1 ok, 2 replay,
// 3 in flight, 4 repetitive.
var reserveScript = redis.NewScript(`
local st = redis.call('HMGET', KEYS[1], 'last', 'fp', 'rep')
local last = tonumber(st[1]) or 0
local rep = tonumber(st[3]) or 0
if st[2] ~= ARGV[2] then
  rep = 0
end
local now = tonumber(ARGV[4])
if tonumber(ARGV[1]) <= last then
  return {2, last, rep}
end
local cur = redis.call('GET', KEYS[2])
if cur then
  local sep = string.find(cur, '|', 1, true)
  if sep and tonumber(string.sub(cur, sep + 1)) > now then
    return {3, last, rep}
  end
end
if rep >= tonumber(ARGV[3]) then
  return {4, last, rep}
end
redis.call('SET', KEYS[2], ARGV[6] .. '|' .. string.format('%.17g', now + tonumber(ARGV[5])), 'PX', ARGV[7])
return {1, last, rep}
`)

// commitScript consumes a reservation held by token.
//
// KEYS as reserveScript; ARGV step, token, fp, max_repeats, now_us,
// conversation_ttl_ms. Returns 1 ok, 4 repetitive (reservation dropped),
// 5 lost.
var commitScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[2])
if not cur then
  return 5
end
local sep = string.find(cur, '|', 1, true)
if not sep or string.sub(cur, 1, sep - 1) ~= ARGV[2] or tonumber(string.sub(cur, sep + 1)) <= tonumber(ARGV[5]) then
  return 5
end
redis.call('DEL', KEYS[2])
local st = redis.call('HMGET', KEYS[1], 'last', 'fp', 'rep')
local last = tonumber(st[1]) or 0
local rep = tonumber(st[3]) or 0
if rep > 0 and st[2] == ARGV[3] then
  if rep >= tonumber(ARGV[4]) then
    return 4
  end
  rep = rep + 1
else
  rep = 1
end
local step = tonumber(ARGV[1])
if step > last then
  last = step
end
redis.call('HSET', KEYS[1], 'last', last, 'fp', ARGV[3], 'rep', rep)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`)

// releaseScript drops a reservation if token holds it.
//
// KEYS[1] the step's reservation; ARGV token. Returns 1 if dropped, else 0.
var releaseScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`)
