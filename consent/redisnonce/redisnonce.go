// Package redisnonce is a [consent.NonceStore] in Redis, so that a consent
// approval is used once across every replica sharing the Redis (ACP §9
// item 4, DESIGN §6).
//
// Each [Store.Use] is one script: SET key 1 NX PX ttl, after the data-epoch
// check below; atomic, one round trip. The key lives until the approval's
// valid_until plus [consent.NonceGrace] (at least the grace), measured by
// the caller's clock.
//
// # Lost data
//
// A Redis restarted without persistence, or flushed, forgets used nonces.
// The key [Store.MarkerKey] (no expiry) holds when this Redis's data began;
// when it is missing, the first Use or New writes it with the server's
// TIME. For one Options.MaxValidity after that, a nonce whose validity may
// have begun before it (valid_until earlier than marker + MaxValidity) is
// refused with [ErrDataLost]: it may have been used before the loss. Only
// durations on each clock are compared (time left on the caller's clock,
// window left on the server's), so skew between a replica and Redis does
// not matter. Skew between the replica that asked (which set valid_until)
// and the one that verifies does: an asker ahead by s makes an approval
// look s younger. Use [Clock] on every replica. Set MaxValidity to at
// least the askers' ApprovalTTL. Options.AcceptDataLoss
// turns the check off (needed for Cluster and Ring clients, whose keys one
// marker cannot cover).
//
// # Security
//
// Every failure is an error wrapping [consent.ErrUnavailable]: Redis down,
// slow past Options.Timeout, or answering anything unexpected. A nonce is
// never taken as fresh when Redis cannot confirm it.
//
// # Concurrency
//
// A Store is safe for concurrent use and starts no goroutines; the client
// belongs to the caller, who closes it.
//
// # Usage
//
//	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	nonces, err := redisnonce.New(ctx, rdb, nil)
package redisnonce

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
	// Prefix starts every key (default DefaultPrefix).
	Prefix string
	// Timeout bounds each operation on top of the caller's context
	// (default DefaultTimeout).
	Timeout time.Duration
	// Now is the clock turning valid_until into a TTL (default time.Now).
	Now func() time.Time
	// AcceptEviction accepts a Redis whose maxmemory-policy may evict keys;
	// by default New refuses it: an evicted nonce is accepted again.
	AcceptEviction bool
	// RequireDurable refuses a Redis without AOF (appendonly yes): after a
	// restart without it, used nonces are forgotten. Without it such a
	// Redis is accepted and Warn is told.
	RequireDurable bool
	// Warn receives warnings found by New; nil means slog.Default().Warn.
	Warn func(msg string)
	// MaxValidity is the longest validity an approval has (valid_until
	// minus decision time): after a data loss, nonces valid since before it
	// are refused for this long (default consent.DefaultApprovalTTL; set it
	// to at least the askers' AskerOptions.ApprovalTTL).
	MaxValidity time.Duration
	// AcceptDataLoss turns off lost-data detection (the marker key): a
	// Redis that lost its data then accepts nonces used before the loss
	// again. Required for Cluster and Ring clients.
	AcceptDataLoss bool
}

// Defaults of [Options].
const (
	DefaultPrefix  = "gatehouse:consent:nonce:"
	DefaultTimeout = 500 * time.Millisecond
)

// Store is the Redis [consent.NonceStore].
type Store struct {
	c        redis.Cmdable
	prefix   string
	timeout  time.Duration
	now      func() time.Time
	validity time.Duration
	marker   bool // lost-data detection on
}

var _ consent.NonceStore = (*Store)(nil)

// New returns a Store using c. A *redis.Client, *redis.ClusterClient or
// *redis.Ring must be created with ContextTimeoutEnabled, since go-redis
// ignores context deadlines otherwise and a hung Redis would block
// verification. New checks the server (INFO): a maxmemory-policy other than
// noeviction is refused unless Options.AcceptEviction, appendonly no under
// Options.RequireDurable. opts may be nil.
func New(ctx context.Context, c redis.Cmdable, opts *Options) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redisnonce.New: nil client", consent.ErrInvalidOptions)
	}
	if !redisx.HonoursDeadlines(c) {
		return nil, fmt.Errorf("%w: redisnonce.New: the go-redis client must be created with ContextTimeoutEnabled: true", consent.ErrInvalidOptions)
	}
	s := &Store{c: c, prefix: DefaultPrefix, timeout: DefaultTimeout, now: time.Now, validity: consent.DefaultApprovalTTL, marker: true}
	if opts != nil {
		if opts.Timeout < 0 || opts.MaxValidity < 0 {
			return nil, fmt.Errorf("%w: redisnonce Options.Timeout is %v and MaxValidity %v, want >= 0", consent.ErrInvalidOptions, opts.Timeout, opts.MaxValidity)
		}
		if opts.MaxValidity > 0 {
			s.validity = opts.MaxValidity
		}
		s.marker = !opts.AcceptDataLoss
		if opts.Timeout > 0 {
			s.timeout = opts.Timeout
		}
		if opts.Prefix != "" {
			if strings.ContainsAny(opts.Prefix, "{}") {
				return nil, fmt.Errorf("%w: redisnonce Options.Prefix must not contain '{' or '}'", consent.ErrInvalidOptions)
			}
			s.prefix = opts.Prefix
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	if _, ok := c.(interface {
		ForEachShard(context.Context, func(context.Context, *redis.Client) error) error
	}); ok && s.marker {
		return nil, fmt.Errorf("%w: redisnonce.New: lost-data detection needs one marker per server, which Redis Cluster and Ring cannot give; set Options.AcceptDataLoss to use them", consent.ErrInvalidOptions)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := redisx.Verify(ctx, c, redisx.HealthOptions{AcceptEviction: o.AcceptEviction, RequireDurable: o.RequireDurable},
		s.timeout, "redisnonce", o.Warn, consent.ErrInvalidOptions, consent.ErrUnavailable); err != nil {
		return nil, err
	}
	if !s.marker {
		return s, nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if _, err := redisx.Marker(cctx, c, s.MarkerKey()); err != nil {
		return nil, fmt.Errorf("%w: redisnonce.New: %w", consent.ErrUnavailable, err)
	}
	return s, nil
}

// Use implements [consent.NonceStore].
func (s *Store) Use(ctx context.Context, nonce string, until time.Time) error {
	if err := consent.CheckNonce(nonce); err != nil {
		return err
	}
	ttl := until.Add(consent.NonceGrace).Sub(s.now())
	if ttl < consent.NonceGrace {
		ttl = consent.NonceGrace
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if !s.marker {
		fresh, err := s.c.SetNX(ctx, s.prefix+nonce, 1, ttl).Result()
		if err != nil {
			return fmt.Errorf("%w: redis: %w", consent.ErrUnavailable, err)
		}
		if !fresh {
			return errReplayed()
		}
		return nil
	}
	return s.useMarked(ctx, nonce, until, ttl)
}

func errReplayed() error {
	return &consent.ProofError{Kind: consent.FailReplayed, Detail: "nonce already used"}
}

// Key returns the Redis key holding nonce, for operators and tests.
func (s *Store) Key(nonce string) string { return s.prefix + nonce }
