// Package redistrust is a [trust.Store] in Redis, for servers that
// run as several replicas: an agent's trust level, and the window of
// decisions that degrades it (QWED §8.3), are shared, and every change is
// one Lua script, so concurrent violations on two replicas both count.
//
//	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	trust, err := redistrust.New(ctx, rdb, nil)
//
// # Keys
//
// One hash per agent, <Prefix>{<agent>}, with fields level, total and
// denials; it expires Options.TTL after its last change (default 30 days),
// and a forgotten agent comes back at Options.Default. The agents with
// state are indexed in <Prefix>ix, by last change, so that their number
// stays under Options.MaxAgents: agent ids a client makes up cannot fill
// Redis, and evict only agents at the default level.
//
// # Security
//
// Every Redis error, and an answer that is not a level, is an error
// wrapping trust.ErrUnavailable; the guard then treats the agent as
// untrusted (fail closed). A Redis that lost its data (restarted without
// persistence, or flushed) is detected by a marker key: for one TTL after
// it, an agent without state is at most untrusted, so a degraded or
// suspended agent never comes back at a higher Default (lost.go). The
// agents with state are capped against floods of made-up names (caps.go).
//
// # Concurrency
//
// A Store is safe for concurrent use and starts no goroutines.
package redistrust

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redisx"
	"github.com/gatehouse-dev/gatehouse/trust"
)

// Options configure a [Store]. nil means defaults; zero fields too.
type Options struct {
	Prefix  string        // default DefaultPrefix
	Timeout time.Duration // each operation, on top of the caller's context (default DefaultTimeout)
	TTL     time.Duration // an agent's state expires this long after its last change (default DefaultTTL)
	Default trust.Level   // the level of agents never Set nor degraded (default trust.Untrusted)
	Window  int           // decisions Record looks at (default trust.Window)

	// AcceptEviction accepts a Redis whose maxmemory-policy may evict keys;
	// by default New refuses it: an evicted agent would come back at the
	// Default level, undoing a degradation.
	AcceptEviction bool
	// RequireDurable refuses a Redis without AOF (appendonly yes). Without
	// it such a Redis is accepted and Warn is told.
	RequireDurable bool
	// Warn receives warnings found by New; nil means slog.Default().Warn.
	Warn func(msg string)
	// MaxAgents caps the agents with state in Redis (default
	// DefaultMaxAgents). Client names are self-declared and every call is
	// recorded, so without a cap one client could fill Redis with names
	// for a TTL. At the cap, agents at the Default level are evicted (see
	// caps.go); agents set or degraded never are, and when none can be
	// evicted a new agent's change fails with trust.ErrCapacity.
	MaxAgents int
	// AcceptIdentityFlood turns the cap off: needed for Redis Cluster and
	// Ring, where a script cannot evict keys of other slots.
	AcceptIdentityFlood bool
	// AcceptDataLoss turns lost-data detection off (see lost.go): needed
	// for Redis Cluster and Ring. With it, an agent degraded or suspended
	// before Redis lost its data comes back at Default at once.
	AcceptDataLoss bool
}

// Client is what a [Store] needs of a go-redis client: scripts and INFO.
// *redis.Client, *redis.ClusterClient and *redis.Ring implement it.
type Client interface {
	redis.Scripter
	Info(ctx context.Context, section ...string) *redis.StringCmd
}

// Defaults of [Options].
const (
	DefaultPrefix  = "gatehouse:consent:trust:"
	DefaultTimeout = 500 * time.Millisecond
	DefaultTTL     = 30 * 24 * time.Hour
)

// Store is the Redis [trust.Store].
type Store struct {
	c     redis.Scripter
	o     Options
	ttlMS int64
	cap   int    // MaxAgents; 0 when off
	known string // the marker New read, in µs; "" when lost-data detection is off
}

var _ trust.Store = (*Store)(nil)

// New returns a Store using c, which must honour context deadlines (a
// go-redis client created with ContextTimeoutEnabled), after checking the
// server (INFO): a maxmemory-policy other than noeviction is refused unless
// Options.AcceptEviction, appendonly no under Options.RequireDurable. opts
// may be nil.
func New(ctx context.Context, c Client, opts *Options) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redistrust.New: nil client", trust.ErrInvalidOptions)
	}
	if !redisx.HonoursDeadlines(c) {
		return nil, fmt.Errorf("%w: redistrust.New: the go-redis client must be created with ContextTimeoutEnabled: true", trust.ErrInvalidOptions)
	}
	o := Options{Prefix: DefaultPrefix, Timeout: DefaultTimeout, TTL: DefaultTTL, Window: trust.Window}
	if opts != nil {
		if opts.Timeout < 0 || opts.TTL < 0 || opts.Window < 0 || opts.MaxAgents < 0 || !opts.Default.Valid() || strings.ContainsAny(opts.Prefix, "{}") {
			return nil, fmt.Errorf("%w: redistrust Options %+v", trust.ErrInvalidOptions, *opts)
		}
		if opts.Prefix != "" {
			o.Prefix = opts.Prefix
		}
		if opts.Timeout > 0 {
			o.Timeout = opts.Timeout
		}
		if opts.TTL > 0 {
			o.TTL = opts.TTL
		}
		if opts.Window > 0 {
			o.Window = opts.Window
		}
		o.Default = opts.Default
		o.AcceptEviction, o.RequireDurable, o.Warn = opts.AcceptEviction, opts.RequireDurable, opts.Warn
		o.MaxAgents, o.AcceptIdentityFlood, o.AcceptDataLoss = opts.MaxAgents, opts.AcceptIdentityFlood, opts.AcceptDataLoss
	}
	capped, err := capOf(c, o)
	if err != nil {
		return nil, err
	}
	if err := redisx.Verify(ctx, c, redisx.HealthOptions{AcceptEviction: o.AcceptEviction, RequireDurable: o.RequireDurable},
		o.Timeout, "redistrust", o.Warn, trust.ErrInvalidOptions, trust.ErrUnavailable); err != nil {
		return nil, err
	}
	st := &Store{c: c, o: o, ttlMS: o.TTL.Milliseconds(), cap: capped}
	if err := st.mark(ctx, c); err != nil {
		return nil, err
	}
	return st, nil
}

// Key returns the Redis key of agent, for operators and tests.
func (s *Store) Key(agent string) string { return s.o.Prefix + "{" + agent + "}" }

// Every script starts with defLua (lost.go) and the write scripts then
// with admitLua (caps.go). KEYS[1] is the agent, then the marker and the
// loss key when lost-data detection is on, then the index when capped;
// ARGV[1] the default level, ARGV[2] ttl_ms, ARGV[3] the cap (0: off),
// ARGV[4] the marker New read ("": detection off), then each script's
// own. A refusal at the cap answers refusedAtCap.

// levelScript returns the level.
var levelScript = redis.NewScript(defLua + `
local l = redis.call('HGET', KEYS[1], 'level')
if l then return tonumber(l) end
return def
`)

// setScript: ARGV[5] level.
var setScript = redis.NewScript(defLua + admitLua + `
redis.call('HSET', KEYS[1], 'level', ARGV[5], 'total', 0, 'denials', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return tonumber(ARGV[5])
`)

// degradeScript: ARGV[5] drop (-1 suspends). Suspended (-1) stays
// suspended; penalties stop at 0 (untrusted).
var degradeScript = redis.NewScript(defLua + admitLua + `
local l = tonumber(redis.call('HGET', KEYS[1], 'level') or def)
local drop = tonumber(ARGV[5])
if l < 0 or drop < 0 then
  l = -1
else
  l = math.max(l - drop, 0)
end
redis.call('HSET', KEYS[1], 'level', l)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return l
`)

// recordScript: ARGV[5] denied (0 or 1), ARGV[6] window. Returns the
// level after.
var recordScript = redis.NewScript(defLua + admitLua + `
local l = tonumber(redis.call('HGET', KEYS[1], 'level') or def)
local total = redis.call('HINCRBY', KEYS[1], 'total', 1)
local denials = redis.call('HINCRBY', KEYS[1], 'denials', tonumber(ARGV[5]))
if total >= tonumber(ARGV[6]) then
  if denials * 10 > total then
    if l >= 0 then l = math.max(l - 1, 0) end
  end
  redis.call('HSET', KEYS[1], 'total', 0, 'denials', 0)
end
redis.call('HSET', KEYS[1], 'level', l)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return l
`)

func (s *Store) run(ctx context.Context, agent string, sc *redis.Script, args ...any) (trust.Level, error) {
	if err := trust.CheckAgent(agent); err != nil {
		return trust.Untrusted, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	keys := make([]string, 1, 4)
	keys[0] = s.Key(agent)
	if s.known != "" {
		keys = append(keys, s.marker(), s.lost())
	}
	if sc != levelScript && s.cap > 0 {
		keys = append(keys, s.index())
	}
	n, err := sc.Run(ctx, s.c, keys, append([]any{int(s.o.Default), s.ttlMS, s.cap, s.known}, args...)...).Int64()
	if err != nil {
		return trust.Untrusted, fmt.Errorf("%w: redis trust store: %w", trust.ErrUnavailable, err)
	}
	if n == refusedAtCap && sc != levelScript {
		return trust.Untrusted, s.capacity()
	}
	l := trust.Level(n)
	if !l.Valid() {
		return trust.Untrusted, fmt.Errorf("%w: redis trust store holds level %d for the agent", trust.ErrUnavailable, n)
	}
	return l, nil
}

// Level implements [trust.Store].
func (s *Store) Level(ctx context.Context, agent string) (trust.Level, error) {
	return s.run(ctx, agent, levelScript)
}

// Set implements [trust.Store].
func (s *Store) Set(ctx context.Context, agent string, l trust.Level) error {
	if !l.Valid() {
		return fmt.Errorf("%w: trust level %v", trust.ErrInvalidRequest, l)
	}
	_, err := s.run(ctx, agent, setScript, int(l))
	return err
}

// Degrade implements [trust.Store] with the penalties of
// trust.Level.Degrade, applied atomically in Redis.
func (s *Store) Degrade(ctx context.Context, agent string, v trust.Violation) (trust.Level, error) {
	// The drop from a level that can fall two levels (trusted) tells the
	// penalty: 1 or 2 levels, or suspension.
	drop := int(trust.Trusted - trust.Trusted.Degrade(v))
	if trust.Trusted.Degrade(v) == trust.Suspended {
		drop = -1
	}
	return s.run(ctx, agent, degradeScript, drop)
}

// Record implements [trust.Store].
func (s *Store) Record(ctx context.Context, agent string, denied bool) (trust.Level, error) {
	d := 0
	if denied {
		d = 1
	}
	return s.run(ctx, agent, recordScript, d, s.o.Window)
}
