package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts run atomically in Redis: every check-and-write below is one
// EVALSHA, so no other client can act between the read and the write. Times
// are microseconds; TTLs are milliseconds.
//
// Every script starts with prelude: ARGV[1] is the caller's deadline in the
// server's clock and ARGV[2] the caller's now ("" for Redis TIME). A script
// that Redis runs after the deadline (the caller already gave up and denied)
// changes nothing and answers an error: no ghost reservation, no charge for
// a denied call. Numbers read from keys must be what the scripts write: a
// present but malformed value ("abc", "nan", "0x10", "1e400") raises an
// error naming the key, so the caller fails closed instead of reading it as
// zero.
const prelude = `
local t = redis.call('TIME')
local rnow = tonumber(t[1]) * 1000000 + tonumber(t[2])
if rnow > tonumber(ARGV[1]) then
  return redis.error_reply('gatehouse: ran after the caller\'s deadline (Redis stalled, or its clock is ahead of this replica\'s by more than the timeout); nothing was changed')
end
local now = rnow
if ARGV[2] ~= '' then
  now = tonumber(ARGV[2])
end
-- life(ms): how long a receipt or its undo lives, in ms: at least ms, and
-- until this script's deadline has passed in Redis's clock, so that no
-- copy of the write (a resend, a copy held on its way) can still run
-- once it is gone, however far the replica's clock is from Redis's.
local function life(ms)
  return math.max(tonumber(ms), math.ceil((tonumber(ARGV[1]) - rnow) / 1000) + 1000)
end
local function int(v, key, field)
  if not v then
    return 0
  end
  if #v > 18 or not string.match(v, '^%-?%d+$') then
    error({err = 'gatehouse: ' .. key .. ' ' .. field .. ' is not an integer; the state is corrupt, so the request is denied'})
  end
  return tonumber(v)
end
local function num(v, key, field)
  if not (string.match(v, '^%-?%d+%.?%d*$') or string.match(v, '^%-?%d+%.?%d*[eE][%-+]?%d+$')) then
    error({err = 'gatehouse: ' .. key .. ' ' .. field .. ' is not a decimal number; the state is corrupt, so the request is denied'})
  end
  local n = tonumber(v)
  if not n or n ~= n or n == math.huge or n == -math.huge then
    error({err = 'gatehouse: ' .. key .. ' ' .. field .. ' is not a finite number; the state is corrupt, so the request is denied'})
  end
  return n
end
`

// lossLua is loss(mkey, lkey, known), for the scripts that read the
// marker when state is absent.
const lossLua = `
-- loss(mkey, lkey, known): the server time (µs) since which this Redis may
-- have lost its data, or nil. Every store read or wrote the marker mkey at
-- construction, so a missing marker is a loss now; a marker younger than
-- the one the calling store knew (known, "" if none) was written after a
-- loss, at its birth. Either is recorded in lkey for every replica.
local function loss(mkey, lkey, known)
  local m = redis.call('GET', mkey)
  if not m then
    m = string.format('%.0f', rnow)
    redis.call('SET', mkey, m)
    redis.call('SET', lkey, m)
    return rnow
  end
  local mv = int(m, mkey, 'marker')
  local l = redis.call('GET', lkey)
  if l then
    l = int(l, lkey, 'loss')
  end
  if known ~= '' and mv > tonumber(known) and (not l or l < mv) then
    redis.call('SET', lkey, m)
    l = mv
  end
  return l
end
`

// rateScript is GCRA, the generic cell rate algorithm: the key holds the
// theoretical arrival time (TAT) of the next event. With period P and N
// events per period, one event costs T = P/N; an event at now is allowed
// when TAT + T - P <= now. That is a token bucket of capacity N that starts
// full, the same behaviour as the in-memory buckets.
//
// A bucket that is absent while this Redis lost its data less than one
// period ago is counted as emptied at the loss (it may have been): it has
// regained only what it regains since.
//
// With a cap (ARGV cap > 0) the last key is the index of live buckets (see
// admitBucket in caps.go), scored by when each is back to half full.
//
// KEYS[1] bucket, KEYS[2] and KEYS[3] when present the marker and the loss
// key, then the index when capped; ARGV (after the prelude's) period_us, n,
// slack_ms, known marker, cap. Returns {status, whole tokens left,
// retry_after_us}, status 1 allowed, 0 denied, 2 refused at the cap.
var rateScript = redis.NewScript(prelude + lossLua + bucketLua + `
local per = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local t = per / n
local cap = tonumber(ARGV[7])
local idx = cap > 0 and 1 or 0
local tat = now
local v = redis.call('GET', KEYS[1])
if v then
  tat = math.max(num(v, KEYS[1], 'TAT'), now)
elseif #KEYS - idx >= 3 then
  local l = loss(KEYS[2], KEYS[3], ARGV[6])
  if l and rnow - l < per then
    tat = now + per - (rnow - l)
  end
end
local new = tat + t
local allow_at = new - per
if now < allow_at then
  return {0, math.floor((now - (tat - per)) / t), math.ceil(allow_at - now)}
end
if cap > 0 and not admitBucket(KEYS[#KEYS], cap, KEYS[1], v, new - per / 2) then
  return {2, 0, 0}
end
redis.call('SET', KEYS[1], string.format('%.17g', new), 'PX', math.ceil((new - now) / 1000) + tonumber(ARGV[5]))
return {1, math.floor((now - allow_at) / t), 0}
`)

// budgetScript applies counters all or nothing.
//
// A counter that is absent while this Redis lost its data after the
// counter's window opened is counted as spent to its max (what was spent
// before the loss cannot be known), and the reply names it: the caller
// refuses with CodeStateLost until the window ends.
//
// With a cap (ARGV cap > 0) the last three keys are the index of live
// scopes by expiry, the index by used share (the largest share of a limit
// its live counters spent; 1 for a counter without a limit) and the
// scope's record (a hash of its counter keys, each with its limit, so
// that a candidate is judged on its counters without a scan and an
// eviction can delete them): see scopeShare and admitScope in caps.go. A write for a scope not indexed is
// refused at the cap (failed index -2) unless a scope that expired, or
// spent at most half of every limit, makes room.
//
// KEYS[i] counter i, then the write's receipt (written by a commit, a
// forced charge or a refund for ARGV receipt_ms, a few seconds, and at
// least until the write's deadline has passed in Redis's clock: a resend
// of the same write finds it and changes nothing, and unchargeScript
// takes a commit back by it when the reply is lost), then when present the marker and
// the loss key, then the indexes and the record when capped; ARGV[3] mode (1 check, 2 commit,
// 3 force, 4 refund), ARGV[4] known marker, ARGV[5] cap, ARGV[6] scope,
// then per counter add, max, ttl_ms, age_us, then receipt_ms, and last the
// key prefix.
// Returns {failed index (0-based), -1, or -2 at the cap, lost index or -1,
// values before the call...}.
var budgetScript = redis.NewScript(prelude + lossLua + scopeLua + `
local mode = tonumber(ARGV[3])
local cap = tonumber(ARGV[5])
local n = (#ARGV - 8) / 4
if mode ~= 1 then
  local r = redis.call('GET', KEYS[n + 1])
  if r == '1' then
    -- This write again (a client's resend after its connection reset):
    -- it landed once, so it is answered as it was, with nothing changed.
    local out, sign = {-1, -1}, (mode == 4 and 1 or -1)
    for i = 1, n do
      out[i + 2] = math.max(int(redis.call('GET', KEYS[i]), KEYS[i], 'counter') + sign * tonumber(ARGV[4 * i + 3]), 0)
    end
    return out
  elseif r then
    return redis.error_reply('gatehouse: this charge was taken back before it ran; nothing was changed')
  end
end
local marked = #KEYS - (cap > 0 and 3 or 0) >= n + 3
local out = {-1, -1}
local lost = {}
local l, looked = nil, false
for i = 1, n do
  local raw = redis.call('GET', KEYS[i])
  local v = int(raw, KEYS[i], 'counter')
  local add, max = tonumber(ARGV[4 * i + 3]), tonumber(ARGV[4 * i + 4])
  if not raw and marked and mode ~= 4 then
    if not looked then
      l, looked = loss(KEYS[n + 2], KEYS[n + 3], ARGV[4]), true
    end
    if l and rnow - tonumber(ARGV[4 * i + 6]) < l then
      v, lost[i] = max, true
    end
  end
  out[i + 2] = v
  if out[1] < 0 and max > 0 and v + add > max then
    out[1] = i - 1
    if lost[i] then
      out[2] = i - 1
    end
  end
end
if mode == 4 then
  for i = 1, n do
    if redis.call('EXISTS', KEYS[i]) == 1 then
      if redis.call('DECRBY', KEYS[i], ARGV[4 * i + 3]) < 0 then
        redis.call('SET', KEYS[i], 0, 'KEEPTTL')
      end
    end
  end
  redis.call('SET', KEYS[n + 1], '1', 'PX', life(ARGV[#ARGV - 1]))
  out[1] = -1
  return out
end
if mode == 3 or (mode == 2 and out[1] < 0) then
  local ttl, rk, set, gone = 0, KEYS[#KEYS], nil, nil
  if cap > 0 then
    local q, old, added
    q, old, set, gone = scopeShare(rk, n, out)
    for i = 1, n do
      ttl = math.max(ttl, tonumber(ARGV[4 * i + 5]))
    end
    added = admitScope(KEYS[#KEYS - 2], KEYS[#KEYS - 1], cap, ARGV[6], now + ttl * 1000, q, ARGV[#ARGV])
    if not added then
      out[1] = -2
      return out
    end
    if q ~= old then
      if added == 0 then
        redis.call('ZADD', KEYS[#KEYS - 1], q, ARGV[6])
      end
      set[#set + 1], set[#set + 2] = '=', q
    end
  end
  for i = 1, n do
    if lost[i] then
      redis.call('SET', KEYS[i], out[i + 2] + tonumber(ARGV[4 * i + 3]), 'PX', ARGV[4 * i + 5])
    else
      redis.call('INCRBY', KEYS[i], ARGV[4 * i + 3])
      redis.call('PEXPIRE', KEYS[i], ARGV[4 * i + 5])
    end
  end
  redis.call('SET', KEYS[n + 1], '1', 'PX', life(ARGV[#ARGV - 1]))
  if cap > 0 then
    -- The record names every live counter with its limit, and lives as
    -- long as the longest, so that an eviction deletes every one.
    if #set > 0 then
      redis.call('HSET', rk, unpack(set))
      if redis.call('PTTL', rk) < ttl then
        redis.call('PEXPIRE', rk, ttl)
      end
    end
    if #gone > 0 then
      redis.call('HDEL', rk, unpack(gone))
    end
  end
end
return out
`)

// unchargeScript takes back a charge whose reply was lost, if it landed:
// its receipt is there. Counters that expired since are not written. The
// receipt is left undone either way, so that a charge that reaches Redis
// after it (its command stalled on the way) changes nothing: until this
// script's deadline, which is past the charge's (it was sent later), has
// passed in Redis's clock, and the charge can no longer run.
//
// KEYS counters, then the receipt; ARGV each counter's add, then
// receipt_ms. Returns 1 if the charge was taken back, 0 if it had not
// landed (or was taken back).
var unchargeScript = redis.NewScript(prelude + `
local r = redis.call('GET', KEYS[#KEYS])
redis.call('SET', KEYS[#KEYS], '-', 'PX', life(ARGV[#ARGV]))
if r ~= '1' then
  return 0
end
for i = 1, #KEYS - 1 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if redis.call('DECRBY', KEYS[i], ARGV[i + 2]) < 0 then
      redis.call('SET', KEYS[i], 0, 'KEEPTTL')
    end
  end
end
return 1
`)

// reserveScript reserves one step (SET NX semantics, with a logical expiry
// from the caller's clock so memory and Redis expire reservations alike).
//
// KEYS[1] conversation hash {last, fp, rep, seen}; KEYS[2] the step's
// reservation; KEYS[3] the owner's live conversations (sorted set scored by
// expiry); KEYS[4] and KEYS[5], when present, the marker of the data epoch
// (see New) and the loss key; with a cap, the index of live conversations
// and the tombstones of evicted ones last (see admitConv in caps.go).
// ARGV step, fp, max_repeats, ttl_us, token, px_ms, conversation_ttl_us,
// per_owner, scope, conversation_px_ms, cap, tombstone cap, index member,
// prefix.
// Returns {status, last committed, repeats} with status 1 ok, 2 replay,
// 3 in flight, 4 repetitive, 6 state lost (or evicted), 7 owner at its
// cap, 8 refused at the cap of live conversations.
var reserveScript = redis.NewScript(prelude + convLua + `
if redis.call('EXISTS', KEYS[2] .. '!' .. ARGV[7]) == 1 then
  return redis.error_reply('gatehouse: this reservation was released before it ran; nothing was changed')
end
local step = tonumber(ARGV[3])
local cap = tonumber(ARGV[13])
local st = redis.call('HMGET', KEYS[1], 'last', 'fp', 'rep', 'seen')
local last = int(st[1], KEYS[1], 'last')
local rep = int(st[3], KEYS[1], 'rep')
local known = st[1] or st[4]
if st[2] ~= ARGV[4] then
  rep = 0
end
if step <= last then
  return {2, last, rep}
end
if cap > 0 and not known and tombstoned(KEYS[#KEYS], ARGV[15]) then
  return {6, 0, 0}
end
if #KEYS - (cap > 0 and 2 or 0) >= 5 and step > 1 and not known then
  local m = redis.call('GET', KEYS[4])
  if not m then
    m = string.format('%.0f', rnow)
    redis.call('SET', KEYS[4], m)
    redis.call('SET', KEYS[5], m)
  end
  if rnow - int(m, KEYS[4], 'marker') < tonumber(ARGV[9]) then
    return {6, 0, 0}
  end
end
local cur = redis.call('GET', KEYS[2])
if cur and string.sub(cur, 1, 1) == '=' then
  -- Committed a moment ago (its conversation's state is gone since).
  return {2, last, rep}
end
if cur then
  local sep = string.find(cur, '|', 1, true)
  if not sep then
    error({err = 'gatehouse: ' .. KEYS[2] .. ' reservation has no expiry; the state is corrupt, so the request is denied'})
  end
  if num(string.sub(cur, sep + 1), KEYS[2], 'expiry') > now then
    if string.sub(cur, 1, sep - 1) == ARGV[7] then
      -- This reservation again (a client's retry after its connection
      -- reset): it is held, by this caller.
      return {1, last, rep}
    end
    return {3, last, rep}
  end
end
if rep >= tonumber(ARGV[5]) then
  return {4, last, rep}
end
if not known then
  -- A new conversation counts against its owner's cap; conversations
  -- past their expiry no longer do.
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZSCORE', KEYS[3], ARGV[11]) == false and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[10]) then
    return {7, 0, 0}
  end
  if cap > 0 and not admitConv(KEYS[#KEYS - 1], KEYS[#KEYS], cap, tonumber(ARGV[14]), ARGV[15], now + tonumber(ARGV[6]), ARGV[16]) then
    return {8, 0, 0}
  end
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[6]), ARGV[11])
  redis.call('PEXPIRE', KEYS[3], ARGV[12])
end
redis.call('SET', KEYS[2], ARGV[7] .. '|' .. string.format('%.17g', now + tonumber(ARGV[6])), 'PX', ARGV[8])
if not known then
  -- A conversation seen with a live reservation is known, so its other
  -- steps are not taken for lost state; it lives as long as the reservation
  -- unless a commit extends it.
  redis.call('HSET', KEYS[1], 'seen', 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
end
return {1, last, rep}
`)

// commitScript consumes a reservation held by token.
//
// KEYS as reserveScript (without the marker and the loss key); ARGV step,
// token, fp, max_repeats, conversation_px_ms, scope, conversation_ttl_us,
// cap, index member, receipt_ms. A commit within receipt_ms (see life)
// of the conversation's last leaves the last one's token on its step,
// "=token", for as long. Returns 1 ok, 4 repetitive
// (reservation dropped), 5 lost (also when the conversation was evicted
// since its reservation).
var commitScript = redis.NewScript(prelude + tombLua + `
local cur = redis.call('GET', KEYS[2])
if cur and string.sub(cur, 1, 1) == '=' then
  -- This step's commit landed: this commit again (a client's retry after
  -- its connection reset), or another caller's.
  if cur == '=' .. ARGV[4] then
    return 1
  end
  return 5
end
if not cur then
  local done = redis.call('HMGET', KEYS[1], 'ok', 'last')
  if done[1] == ARGV[4] and tonumber(ARGV[3]) <= int(done[2], KEYS[1], 'last') then
    -- This commit again (a client's retry after its connection reset):
    -- it landed once.
    return 1
  end
  return 5
end
local sep = string.find(cur, '|', 1, true)
if not sep or string.sub(cur, 1, sep - 1) ~= ARGV[4] or num(string.sub(cur, sep + 1), KEYS[2], 'expiry') <= now then
  return 5
end
local cap = tonumber(ARGV[10])
if cap > 0 and redis.call('EXISTS', KEYS[1]) == 0 and tombstoned(KEYS[5], ARGV[11]) then
  redis.call('DEL', KEYS[2])
  return 5
end
local st = redis.call('HMGET', KEYS[1], 'last', 'fp', 'rep')
local last = int(st[1], KEYS[1], 'last')
local rep = int(st[3], KEYS[1], 'rep')
redis.call('DEL', KEYS[2])
if rep > 0 and st[2] == ARGV[5] then
  if rep >= tonumber(ARGV[6]) then
    return 4
  end
  rep = rep + 1
else
  rep = 1
end
local step = tonumber(ARGV[3])
if step > last then
  last = step
end
-- 'ok' names the conversation's last commit (its token, step and time),
-- for a resend of it or the check of a commit whose reply was lost. A
-- commit a few seconds after another (a parallel step's) leaves the
-- other's token on its step for as long, so that its resend or check
-- still finds it.
local prev = redis.call('HMGET', KEYS[1], 'ok', 'oks', 'okt')
local hold = life(ARGV[12])
if prev[1] and prev[2] and prev[3] and rnow - int(prev[3], KEYS[1], 'okt') < hold * 1000 then
  redis.call('SET', string.sub(KEYS[2], 1, #KEYS[2] - #ARGV[3]) .. prev[2], '=' .. prev[1], 'PX', hold)
end
redis.call('HSET', KEYS[1], 'last', last, 'fp', ARGV[5], 'rep', rep, 'ok', ARGV[4], 'oks', ARGV[3], 'okt', string.format('%.0f', rnow))
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[9]), ARGV[8])
redis.call('PEXPIRE', KEYS[3], ARGV[7])
if cap > 0 then
  redis.call('ZADD', KEYS[4], now + tonumber(ARGV[9]), ARGV[11])
end
return 1
`)

// committedScript tells whether the commit of token landed, when its
// reply was lost: the commit script leaves its token in the
// conversation's 'ok' field until the next commit of the conversation,
// and then on its step if that came within a few seconds.
//
// KEYS[1] conversation hash, KEYS[2] the step; ARGV token. Returns 1
// committed, else 0.
var committedScript = redis.NewScript(`
if redis.call('GET', KEYS[2]) == '=' .. ARGV[1] or redis.call('HGET', KEYS[1], 'ok') == ARGV[1] then
  return 1
end
return 0
`)

// releaseScript drops a reservation if token holds it, and leaves the
// token undone (KEYS[1] .. '!' .. token) for receipt_ms and at least until
// its deadline has passed in Redis's clock (see life), so that a
// reservation of that token that reaches Redis after it (its command
// held on the way while the caller was told it failed) reserves nothing.
//
// KEYS[1] the step's reservation; ARGV token, receipt_ms. Returns 1 if
// dropped, else 0.
var releaseScript = redis.NewScript(prelude + `
redis.call('SET', KEYS[1] .. '!' .. ARGV[3], '-', 'PX', life(ARGV[4]))
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[3] + 1) == ARGV[3] .. '|' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`)
