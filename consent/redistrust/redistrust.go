// Package redistrust is a [consent.TrustStore] in Redis, for servers that
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
// so agent ids a client makes up cannot fill Redis, and a forgotten agent
// comes back at Options.Default.
//
// # Security
//
// Every Redis error, and an answer that is not a level, is an error
// wrapping consent.ErrUnavailable; the guard then treats the agent as
// untrusted (fail closed).
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

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/internal/redisx"
)

// Options configure a [Store]. nil means defaults; zero fields too.
type Options struct {
	Prefix  string             // default DefaultPrefix
	Timeout time.Duration      // each operation, on top of the caller's context (default DefaultTimeout)
	TTL     time.Duration      // an agent's state expires this long after its last change (default DefaultTTL)
	Default consent.TrustLevel // the level of agents never Set nor degraded (default TrustUntrusted)
	Window  int                // decisions Record looks at (default consent.TrustWindow)

	// AcceptEviction accepts a Redis whose maxmemory-policy may evict keys;
	// by default New refuses it: an evicted agent would come back at the
	// Default level, undoing a degradation.
	AcceptEviction bool
	// RequireDurable refuses a Redis without AOF (appendonly yes). Without
	// it such a Redis is accepted and Warn is told.
	RequireDurable bool
	// Warn receives warnings found by New; nil means slog.Default().Warn.
	Warn func(msg string)
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

// Store is the Redis [consent.TrustStore].
type Store struct {
	c     redis.Scripter
	o     Options
	ttlMS int64
}

var _ consent.TrustStore = (*Store)(nil)

// New returns a Store using c, which must honour context deadlines (a
// go-redis client created with ContextTimeoutEnabled), after checking the
// server (INFO): a maxmemory-policy other than noeviction is refused unless
// Options.AcceptEviction, appendonly no under Options.RequireDurable. opts
// may be nil.
func New(ctx context.Context, c Client, opts *Options) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redistrust.New: nil client", consent.ErrInvalidOptions)
	}
	if !redisx.HonoursDeadlines(c) {
		return nil, fmt.Errorf("%w: redistrust.New: the go-redis client must be created with ContextTimeoutEnabled: true", consent.ErrInvalidOptions)
	}
	o := Options{Prefix: DefaultPrefix, Timeout: DefaultTimeout, TTL: DefaultTTL, Window: consent.TrustWindow}
	if opts != nil {
		if opts.Timeout < 0 || opts.TTL < 0 || opts.Window < 0 || !opts.Default.Valid() || strings.ContainsAny(opts.Prefix, "{}") {
			return nil, fmt.Errorf("%w: redistrust Options %+v", consent.ErrInvalidOptions, *opts)
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
	}
	if err := redisx.Verify(ctx, c, redisx.HealthOptions{AcceptEviction: o.AcceptEviction, RequireDurable: o.RequireDurable},
		o.Timeout, "redistrust", o.Warn, consent.ErrInvalidOptions, consent.ErrUnavailable); err != nil {
		return nil, err
	}
	return &Store{c: c, o: o, ttlMS: o.TTL.Milliseconds()}, nil
}

// Key returns the Redis key of agent, for operators and tests.
func (s *Store) Key(agent string) string { return s.o.Prefix + "{" + agent + "}" }

// levelScript: KEYS[1]; ARGV default. Returns the level.
var levelScript = redis.NewScript(`
local l = redis.call('HGET', KEYS[1], 'level')
if l then return tonumber(l) end
return tonumber(ARGV[1])
`)

// setScript: KEYS[1]; ARGV level, ttl_ms.
var setScript = redis.NewScript(`
redis.call('HSET', KEYS[1], 'level', ARGV[1], 'total', 0, 'denials', 0)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return tonumber(ARGV[1])
`)

// degradeScript: KEYS[1]; ARGV default, drop (-1 suspends), ttl_ms.
// Suspended (-1) stays suspended; penalties stop at 0 (untrusted).
var degradeScript = redis.NewScript(`
local l = tonumber(redis.call('HGET', KEYS[1], 'level') or ARGV[1])
local drop = tonumber(ARGV[2])
if l < 0 or drop < 0 then
  l = -1
else
  l = math.max(l - drop, 0)
end
redis.call('HSET', KEYS[1], 'level', l)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return l
`)

// recordScript: KEYS[1]; ARGV default, denied (0|1), window, ttl_ms. More
// than 10% denials in a full window drop one level; the window restarts.
var recordScript = redis.NewScript(`
local l = tonumber(redis.call('HGET', KEYS[1], 'level') or ARGV[1])
local total = redis.call('HINCRBY', KEYS[1], 'total', 1)
local denials = redis.call('HINCRBY', KEYS[1], 'denials', tonumber(ARGV[2]))
if total >= tonumber(ARGV[3]) then
  if denials * 10 > total then
    if l >= 0 then l = math.max(l - 1, 0) end
  end
  redis.call('HSET', KEYS[1], 'total', 0, 'denials', 0)
end
redis.call('HSET', KEYS[1], 'level', l)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return l
`)

func (s *Store) run(ctx context.Context, agent string, sc *redis.Script, args ...any) (consent.TrustLevel, error) {
	if err := consent.CheckAgent(agent); err != nil {
		return consent.TrustUntrusted, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	n, err := sc.Run(ctx, s.c, []string{s.Key(agent)}, args...).Int64()
	if err != nil {
		return consent.TrustUntrusted, fmt.Errorf("%w: redis trust store: %w", consent.ErrUnavailable, err)
	}
	l := consent.TrustLevel(n)
	if !l.Valid() {
		return consent.TrustUntrusted, fmt.Errorf("%w: redis trust store holds level %d for the agent", consent.ErrUnavailable, n)
	}
	return l, nil
}

// Level implements [consent.TrustStore].
func (s *Store) Level(ctx context.Context, agent string) (consent.TrustLevel, error) {
	return s.run(ctx, agent, levelScript, int(s.o.Default))
}

// Set implements [consent.TrustStore].
func (s *Store) Set(ctx context.Context, agent string, l consent.TrustLevel) error {
	if !l.Valid() {
		return fmt.Errorf("%w: trust level %v", consent.ErrInvalidRequest, l)
	}
	_, err := s.run(ctx, agent, setScript, int(l), s.ttlMS)
	return err
}

// Degrade implements [consent.TrustStore] with the penalties of
// consent.TrustLevel.Degrade, applied atomically in Redis.
func (s *Store) Degrade(ctx context.Context, agent string, v consent.Violation) (consent.TrustLevel, error) {
	// The drop from a level that can fall two levels (trusted) tells the
	// penalty: 1 or 2 levels, or suspension.
	drop := int(consent.TrustTrusted - consent.TrustTrusted.Degrade(v))
	if consent.TrustTrusted.Degrade(v) == consent.TrustSuspended {
		drop = -1
	}
	return s.run(ctx, agent, degradeScript, int(s.o.Default), drop, s.ttlMS)
}

// Record implements [consent.TrustStore].
func (s *Store) Record(ctx context.Context, agent string, denied bool) (consent.TrustLevel, error) {
	d := 0
	if denied {
		d = 1
	}
	return s.run(ctx, agent, recordScript, int(s.o.Default), d, s.o.Window, s.ttlMS)
}
