package redisgrant

import (
	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/grant"
)

// Every script answers {status, left, expired grant JSON...}: the grants
// it found expired and deleted, each returned to exactly one caller.

// createScript: KEYS[1], KEYS[2] the grant's withdrawal mark; ARGV id,
// json, left, expires_ms, now_ms, cap. A grant its Create withdrew (the
// reply was lost) is not stored (status -1); a grant already stored is
// this Create again (go-redis's resend after its connection reset, or a
// copy held on its way) and is left as it is, its uses taken since
// included (status 1). Expired grants are swept first (lossless), then
// a principal at its cap is refused (status 0).
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return {-1, 0} end
local had = redis.call('HGET', KEYS[1], 'n:' .. ARGV[1])
if had then return {1, tonumber(had)} end
local now = tonumber(ARGV[5])
local out = {0, 0}
local all = redis.call('HGETALL', KEYS[1])
local live = 0
for i = 1, #all, 2 do
  local f = all[i]
  if string.sub(f, 1, 2) == 'x:' then
    local id = string.sub(f, 3)
    local n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. id))
    local expired = tonumber(all[i + 1]) <= now
    if expired or not n or n == 0 then
      local g = redis.call('HGET', KEYS[1], 'g:' .. id)
      redis.call('HDEL', KEYS[1], 'g:' .. id, 'n:' .. id, 'x:' .. id)
      if g and expired and n and n ~= 0 then table.insert(out, g) end
    else
      live = live + 1
    end
  end
end
if live >= tonumber(ARGV[6]) then return out end
local id = ARGV[1]
redis.call('HSET', KEYS[1], 'g:' .. id, ARGV[2], 'n:' .. id, ARGV[3], 'x:' .. id, ARGV[4])
local want = tonumber(ARGV[4]) - now + 60000
if redis.call('PTTL', KEYS[1]) < want then redis.call('PEXPIRE', KEYS[1], want) end
out[1] = 1
out[2] = tonumber(ARGV[3])
return out
`)

// consumeScript: KEYS[1], and with take the use's receipt KEYS[2]; ARGV
// id, now_ms, take (1: take a use; 0: only sweep if expired, or report
// the uses left), receipt_ms. Status 1: live (and, with take, one use
// taken, its receipt written; left is what remains; or this use again,
// resent by the client: its receipt names the grant, nothing more is
// taken); 0: gone, spent or expired, or the receipt was undone before
// the script ran. A spent grant
// (n 0) stays until it expires, for refundScript and undoScript.
var consumeScript = redis.NewScript(`
local id = ARGV[1]
local r = ARGV[3] == '1' and redis.call('GET', KEYS[2])
if r and r ~= id then return {0, 0} end
local x = redis.call('HGET', KEYS[1], 'x:' .. id)
if not x then return {0, 0} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. id))
if r and n and tonumber(x) > tonumber(ARGV[2]) then
  -- This use again (a client's retry after its connection reset): it
  -- was taken once.
  return {1, n}
end
if tonumber(x) <= tonumber(ARGV[2]) or not n then
  local g = redis.call('HGET', KEYS[1], 'g:' .. id)
  redis.call('HDEL', KEYS[1], 'g:' .. id, 'n:' .. id, 'x:' .. id)
  if g and n and n ~= 0 then return {0, 0, g} end
  return {0, 0}
end
if n == 0 then return {0, 0} end
if ARGV[3] ~= '1' or n < 0 then return {1, n} end
n = n - 1
redis.call('HSET', KEYS[1], 'n:' .. id, n)
redis.call('SET', KEYS[2], id, 'PX', ARGV[4])
return {1, n}
`)

// undoScript: KEYS[1], KEYS[2] the receipt of a use whose reply was lost;
// ARGV id, uses, receipt_ms. Gives the use back if it was taken (the
// receipt names the grant), and leaves the receipt undone either way, so
// that a consume that reaches Redis later takes nothing. Returns 1 if a
// use was given back.
var undoScript = redis.NewScript(`
local r = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[2], '-', 'PX', ARGV[3])
if r ~= ARGV[1] then return 0 end
local n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. ARGV[1]))
if n and n >= 0 and n < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], 'n:' .. ARGV[1], n + 1) end
return 1
`)

// refundScript: KEYS[1], KEYS[2] the refund's receipt; ARGV id, now_ms,
// uses, receipt_ms. Gives one use back to a grant still stored and
// unexpired; 0 when there is none. A refund sent again (a client's resend
// after its connection reset) finds its receipt and gives nothing more.
var refundScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 1 end
local id = ARGV[1]
local x = redis.call('HGET', KEYS[1], 'x:' .. id)
local n = tonumber(redis.call('HGET', KEYS[1], 'n:' .. id))
if not x or not n or tonumber(x) <= tonumber(ARGV[2]) then return 0 end
if n >= 0 and n < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], 'n:' .. id, n + 1) end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[4])
return 1
`)

// withdrawScript: KEYS[1], KEYS[2] the grant's withdrawal mark; ARGV
// id, mark_ms. Removes a grant whose Create may have landed although it
// failed, and marks it withdrawn so that a copy of the Create that lands
// later stores nothing.
var withdrawScript = redis.NewScript(`
redis.call('SET', KEYS[2], '-', 'PX', ARGV[2])
return redis.call('HDEL', KEYS[1], 'g:' .. ARGV[1], 'n:' .. ARGV[1], 'x:' .. ARGV[1])
`)

// revokeScript: KEYS[1], KEYS[2] the revocation's receipt, KEYS[3] the
// grant's withdrawal mark; ARGV id, receipt_ms, now_ms, mark_ms.
// Returns the grant's JSON, or nil. The receipt holds the JSON for
// receipt_ms, so that this revocation sent again (go-redis's resend
// after its connection reset) is answered with it, and one whose reply
// was lost can read it; the mark keeps a copy of the grant's Create that
// lands later from storing it again, for as long as the grant could be
// used: mark_ms (the longest lifetime of a scope and a minute), or its
// expiry by now_ms and a minute if later.
var revokeScript = redis.NewScript(`
local r = redis.call('GET', KEYS[2])
if r then return r end
local g = redis.call('HGET', KEYS[1], 'g:' .. ARGV[1])
if not g then return false end
local x = tonumber(redis.call('HGET', KEYS[1], 'x:' .. ARGV[1]))
redis.call('HDEL', KEYS[1], 'g:' .. ARGV[1], 'n:' .. ARGV[1], 'x:' .. ARGV[1])
redis.call('SET', KEYS[2], g, 'PX', ARGV[2])
local life = tonumber(ARGV[4])
if x then life = math.max(life, x - tonumber(ARGV[3]) + 60000) end
redis.call('SET', KEYS[3], '-', 'PX', life)
return g
`)

// receiptScript: KEYS[1] a receipt. Returns what it holds, or nil.
var receiptScript = redis.NewScript(`return redis.call('GET', KEYS[1])`)

// reply splits a script's answer into its status and the expired grants.
func reply(res []any) (int64, []grant.Grant) {
	var st int64
	if len(res) > 0 {
		st, _ = res[0].(int64)
	}
	var expired []grant.Grant
	for _, v := range res[min(2, len(res)):] {
		if s, ok := v.(string); ok {
			if g, err := grant.Unmarshal([]byte(s)); err == nil {
				expired = append(expired, g)
			}
		}
	}
	return st, expired
}

// left is the uses-left member of a script's answer.
func left(res []any) int {
	if len(res) < 2 {
		return 0
	}
	n, _ := res[1].(int64)
	return int(n)
}
