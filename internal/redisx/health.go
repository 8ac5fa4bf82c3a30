package redisx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinels of [Check]; each store wraps them in its own ErrInvalidOptions
// or ErrUnavailable so that callers can branch on either.
var (
	// ErrEviction: the server may evict keys (maxmemory-policy other than
	// noeviction) and the caller did not accept it.
	ErrEviction = errors.New("redis may evict keys")
	// ErrNotDurable: the caller asked for durable state and AOF is off.
	ErrNotDurable = errors.New("redis does not persist every write (appendonly no)")
	// ErrHealth: INFO could not be read or parsed.
	ErrHealth = errors.New("redis server check failed")
)

// HealthOptions say what [Check] accepts.
type HealthOptions struct {
	// AcceptEviction accepts a maxmemory-policy other than noeviction. An
	// attacker who fills memory then evicts other users' state (spent
	// budgets, committed steps, used nonces): only for state whose loss is
	// harmless.
	AcceptEviction bool
	// RequireDurable refuses a server without AOF (appendonly yes): a
	// restart then loses recent writes, used nonces and committed steps
	// included.
	RequireDurable bool
}

// Health is what [Check] learned about the server.
type Health struct {
	EvictionPolicy string // maxmemory_policy, e.g. "noeviction"
	MaxMemory      int64  // bytes; 0 means no limit
	AOF            bool   // aof_enabled
	Warnings       []string
}

// Infoer is the part of a go-redis client [Check] uses. *redis.Client,
// *redis.ClusterClient (it asks one node) and *redis.Ring implement it.
type Infoer interface {
	Info(ctx context.Context, section ...string) *redis.StringCmd
}

// Check reads INFO memory and INFO persistence (which work where CONFIG is
// blocked) and refuses a server whose maxmemory-policy may evict keys,
// unless o.AcceptEviction, or one without AOF when o.RequireDurable. A
// server without AOF is otherwise accepted with a warning in Health.
func Check(ctx context.Context, c Infoer, o HealthOptions) (Health, error) {
	var h Health
	txt, err := c.Info(ctx, "memory", "persistence").Result()
	if err != nil {
		return h, fmt.Errorf("%w: INFO memory persistence: %v", ErrHealth, err)
	}
	f := parseInfo(txt)
	pol, ok := f["maxmemory_policy"]
	if !ok {
		return h, fmt.Errorf("%w: INFO memory has no maxmemory_policy field", ErrHealth)
	}
	h.EvictionPolicy = pol
	h.MaxMemory, _ = strconv.ParseInt(f["maxmemory"], 10, 64)
	h.AOF = f["aof_enabled"] == "1"
	if pol != "noeviction" && !o.AcceptEviction {
		return h, fmt.Errorf("%w: maxmemory-policy is %s, so a client that fills memory evicts other clients' limits and replay state; set maxmemory-policy noeviction (or accept eviction explicitly)", ErrEviction, pol)
	}
	if !h.AOF {
		if o.RequireDurable {
			return h, fmt.Errorf("%w: a restart would forget used nonces and committed steps; set appendonly yes (appendfsync everysec or always)", ErrNotDurable)
		}
		h.Warnings = append(h.Warnings, "redis has appendonly no: a restart loses state written since the last snapshot; state written before the restart is detected as lost and fails closed for one lifetime")
	}
	return h, nil
}

// parseInfo reads "key:value" lines of an INFO reply.
func parseInfo(txt string) map[string]string {
	f := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(txt))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			f[k] = v
		}
	}
	return f
}

// MarkerScripter is the part of a go-redis client [Marker] uses.
type MarkerScripter interface {
	redis.Scripter
}

// markerScript creates the marker if absent and returns its value and the
// server time, both in microseconds since the Unix epoch.
var markerScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local m = redis.call('GET', KEYS[1])
if not m then
  redis.call('SET', KEYS[1], string.format('%.0f', now))
  return {now, now, 1}
end
if not string.match(m, '^%d+$') then
  return redis.error_reply('gatehouse: marker key ' .. KEYS[1] .. ' holds a non-integer')
end
return {tonumber(m), now, 0}
`)

// MarkerState is the marker of a data epoch: when the Redis data set the
// stores see began. A Redis restarted without its data, or flushed, has no
// marker; the first store to look sets a new one, and for one lifetime after
// Born, state that should exist but does not cannot be told from state that
// was lost.
type MarkerState struct {
	Born    time.Time // when the marker was written
	Now     time.Time // the server's clock when it was read
	Created bool      // this call wrote it: no marker was there
}

// Marker reads key, a marker without expiry, creating it with the server's
// time when absent.
func Marker(ctx context.Context, c MarkerScripter, key string) (MarkerState, error) {
	v, err := markerScript.Run(ctx, c, []string{key}).Int64Slice()
	if err != nil {
		return MarkerState{}, fmt.Errorf("%w: marker %s: %v", ErrHealth, key, err)
	}
	if len(v) != 3 {
		return MarkerState{}, fmt.Errorf("%w: marker %s: %d values", ErrHealth, key, len(v))
	}
	return MarkerState{Born: time.UnixMicro(v[0]), Now: time.UnixMicro(v[1]), Created: v[2] == 1}, nil
}

// IsOOM reports whether err is Redis refusing a write at maxmemory under
// noeviction: a capacity limit, not an outage.
func IsOOM(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "OOM ")
}

// Verify runs [Check] within timeout for a store's constructor: a
// configuration it refuses wraps invalid (the store's ErrInvalidOptions), a
// server it cannot read wraps unavailable, and warnings go to warn (nil
// means slog.Default().Warn) prefixed with who.
func Verify(ctx context.Context, c Infoer, o HealthOptions, timeout time.Duration, who string, warn func(string), invalid, unavailable error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, err := Check(ctx, c, o)
	switch {
	case errors.Is(err, ErrHealth):
		return fmt.Errorf("%w: %s: %w", unavailable, who, err)
	case err != nil:
		return fmt.Errorf("%w: %s: %w", invalid, who, err)
	}
	if warn == nil {
		warn = func(msg string) { slog.Default().Warn(msg) }
	}
	for _, w := range h.Warnings {
		warn(who + ": " + w)
	}
	return nil
}
