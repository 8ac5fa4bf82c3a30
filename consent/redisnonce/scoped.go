package redisnonce

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/consent"
)

var _ consent.ScopedNonceStore = (*Store)(nil)

// DefaultMaxPerScope is the per-scope cap of [Store.UseScoped].
const DefaultMaxPerScope = consent.DefaultMaxNoncesPerScope

// scopedUse counts a scope's unexpired nonces in a sorted set scored by
// their forget time: drop the expired, refuse when full, else add. One
// script, so the count and the add are atomic per scope.
var scopedUse = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
local t = redis.call('PTTL', KEYS[1])
local want = tonumber(ARGV[2]) - tonumber(ARGV[1])
if t < want then redis.call('PEXPIRE', KEYS[1], want) end
return 1`)

// UseScoped implements [consent.ScopedNonceStore]: like [Store.Use], and
// scope (an agent id) may hold at most [DefaultMaxPerScope] unexpired
// nonces, counted in the key ScopeKey(scope); beyond, the nonce is refused
// with [consent.ErrCapacity] before it is consumed, and other scopes are not
// affected. Two concurrent uses of one scope at its limit may both pass the
// count; the excess is bounded by that scope's concurrency. Scope "" is
// [Store.Use].
func (s *Store) UseScoped(ctx context.Context, scope, nonce string, until time.Time) error {
	if scope == "" {
		return s.Use(ctx, nonce, until)
	}
	if err := consent.CheckNonce(nonce); err != nil {
		return err
	}
	if len(scope) > consent.MaxNonceLen {
		return fmt.Errorf("%w: scope of %d bytes, at most %d", consent.ErrInvalidNonce, len(scope), consent.MaxNonceLen)
	}
	now := s.now()
	forget := until.Add(consent.NonceGrace)
	if min := now.Add(consent.NonceGrace); forget.Before(min) {
		forget = min
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	ok, err := scopedUse.Run(cctx, s.c, []string{s.ScopeKey(scope)},
		strconv.FormatInt(now.UnixMilli(), 10), strconv.FormatInt(forget.UnixMilli(), 10),
		strconv.Itoa(DefaultMaxPerScope), nonce).Int()
	cancel()
	if err != nil {
		return fmt.Errorf("%w: redis: %w", consent.ErrUnavailable, err)
	}
	if ok == 0 {
		return fmt.Errorf("%w: this agent holds %d unexpired approvals; others are not affected", consent.ErrCapacity, DefaultMaxPerScope)
	}
	return s.Use(ctx, nonce, until)
}

// ScopeKey returns the Redis key counting scope's nonces: the prefix
// without its trailing ':' and "-scope:", so no nonce key is one.
func (s *Store) ScopeKey(scope string) string {
	return strings.TrimSuffix(s.prefix, ":") + "-scope:" + scope
}
