// Package redisgrant is a [grant.Store] in Redis, for servers that run as
// several replicas: a grant made on one replica is used on any, and each
// use is one Lua script, so a grant of N uses lets exactly N calls through
// whichever replicas they reach.
//
//	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	grants, err := redisgrant.New(ctx, rdb, nil)
//
// # Keys
//
// One hash per principal, <Prefix>{<sha256(principal)[:16] hex>}, with three
// fields per grant: g:<id> (the grant as JSON), n:<id> (uses left, -1 for
// unlimited) and x:<id> (expiry, Unix milliseconds of the caller's clock).
// The key expires a minute after its longest-lived grant, so principals
// that stop using grants leave nothing behind. Each use taken or given
// back also leaves a receipt, <key>r:<token>, for as long as the grant
// can be used (a minute past its expiry, at least twice the Timeout and
// a second): a use whose reply was lost is given back by it, and a use or
// refund that reaches Redis again, however late (go-redis resends after a
// connection reset, and the first copy may still be on its way), finds it
// and changes nothing more. A Create whose reply was lost is withdrawn,
// and a revoked grant marked, by <key>r:<grant id> for as long as the
// grant could be used, so that a copy of its Create landing later stores
// nothing (a revoked grant's mark lives grant.MaxDuration and a minute);
// a Create go-redis sends again finds its grant and leaves it as it is.
// A Revoke's receipt holds the grant for twice the Timeout and a second:
// its resend is answered with it, and a Revoke whose reply was lost
// reads it.
//
// # Security
//
// Every Redis error is an error wrapping grant.ErrUnavailable; the guard
// then asks the human (fail closed). An evicting Redis is refused unless
// Options.AcceptEviction (an evicted principal loses its grants without a
// GRANT_EXPIRED or GRANT_REVOKED event, so the audit log would no longer
// account for every grant), and a
// Redis without AOF is accepted with a warning: a restart from an older
// snapshot can restore a revoked grant or spent uses; set RequireDurable
// where that matters.
//
// # Concurrency
//
// A Store is safe for concurrent use and starts no goroutines.
package redisgrant

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/internal/redisx"
)

// Defaults of [Options].
const (
	DefaultPrefix  = "gatehouse:grant:"
	DefaultTimeout = 500 * time.Millisecond
)

// Options configure a [Store]. nil means defaults; zero fields too.
type Options struct {
	Prefix          string        // default DefaultPrefix; lowercase letters, digits and ':-_' only
	Timeout         time.Duration // each operation, on top of the caller's context (default DefaultTimeout)
	MaxPerPrincipal int           // live grants per principal (default grant.DefaultMaxPerPrincipal)

	// AcceptEviction accepts a Redis whose maxmemory-policy may evict keys.
	AcceptEviction bool
	// RequireDurable refuses a Redis without AOF (appendonly yes).
	RequireDurable bool
	// Warn receives warnings found by New; nil means slog.Default().Warn.
	Warn func(msg string)
}

// Client is what a [Store] needs of a go-redis client.
type Client interface {
	redis.Scripter
	HGetAll(ctx context.Context, key string) *redis.MapStringStringCmd
	Scan(ctx context.Context, cursor uint64, match string, count int64) *redis.ScanCmd
	Info(ctx context.Context, section ...string) *redis.StringCmd
}

// Store is the Redis [grant.Store].
type Store struct {
	c Client
	o Options
}

var _ grant.Store = (*Store)(nil)

// New returns a Store using c, which must honour context deadlines (a
// go-redis client created with ContextTimeoutEnabled), after checking the
// server (INFO). opts may be nil.
func New(ctx context.Context, c Client, opts *Options) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redisgrant.New: nil client", grant.ErrInvalidOptions)
	}
	if !redisx.HonoursDeadlines(c) {
		return nil, fmt.Errorf("%w: redisgrant.New: the go-redis client must be created with ContextTimeoutEnabled: true", grant.ErrInvalidOptions)
	}
	o := Options{Prefix: DefaultPrefix, Timeout: DefaultTimeout, MaxPerPrincipal: grant.DefaultMaxPerPrincipal}
	if opts != nil {
		if opts.Timeout < 0 || opts.MaxPerPrincipal < 0 || strings.Trim(opts.Prefix, "abcdefghijklmnopqrstuvwxyz0123456789:-_") != "" {
			return nil, fmt.Errorf("%w: redisgrant Options: negative Timeout or MaxPerPrincipal, or a Prefix with characters other than lowercase letters, digits and ':-_'", grant.ErrInvalidOptions)
		}
		if opts.Prefix != "" {
			o.Prefix = opts.Prefix
		}
		if opts.Timeout > 0 {
			o.Timeout = opts.Timeout
		}
		if opts.MaxPerPrincipal > 0 {
			o.MaxPerPrincipal = opts.MaxPerPrincipal
		}
		o.AcceptEviction, o.RequireDurable, o.Warn = opts.AcceptEviction, opts.RequireDurable, opts.Warn
	}
	if err := redisx.Verify(ctx, c, redisx.HealthOptions{AcceptEviction: o.AcceptEviction, RequireDurable: o.RequireDurable},
		o.Timeout, "redisgrant", o.Warn, grant.ErrInvalidOptions, grant.ErrUnavailable); err != nil {
		return nil, err
	}
	return &Store{c: c, o: o}, nil
}

// Key returns the Redis key of principal's grants.
func (s *Store) Key(principal string) string {
	sum := sha256.Sum256([]byte(principal))
	return s.o.Prefix + "{" + hex.EncodeToString(sum[:16]) + "}"
}

func (s *Store) fail(op string, err error) error {
	if redisx.IsOOM(err) {
		return fmt.Errorf("%w: redis grant store %s: %w", grant.ErrCapacity, op, err)
	}
	return fmt.Errorf("%w: redis grant store %s: %w", grant.ErrUnavailable, op, err)
}

// Create implements [grant.Store].
func (s *Store) Create(ctx context.Context, g grant.Grant, now time.Time) ([]grant.Grant, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	g.Left = g.Uses
	if g.Uses == 0 {
		g.Left = -1
	}
	js, err := grant.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", grant.ErrInvalid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	key := s.Key(g.Principal)
	keys := []string{key, key + "r:" + g.ID}
	if err := ctx.Err(); err != nil {
		return nil, s.fail("create", err) // not sent
	}
	res, err := createScript.Run(ctx, s.c, keys,
		g.ID, js, g.Left, g.Expires.UnixMilli(), now.UnixMilli(), s.o.MaxPerPrincipal).Slice()
	if err != nil {
		if redisx.MayHaveRun(err) {
			// Redis may hold the grant while the caller records it as
			// refused: withdraw it by its id, or a grant the audit log
			// does not record would let calls through.
			s.withdraw(context.WithoutCancel(ctx), keys, g, now)
		}
		return nil, s.fail("create", err)
	}
	ok, expired := reply(res)
	switch ok {
	case 1:
		return expired, nil
	case -1:
		return expired, fmt.Errorf("%w: redis grant store create: this grant was withdrawn after its reply was lost; nothing was stored", grant.ErrUnavailable)
	}
	return expired, fmt.Errorf("%w: the principal holds %d live grants; revoke one first", grant.ErrCapacity, s.o.MaxPerPrincipal)
}

// withdraw removes g, whose Create at now failed after it may have
// landed, and marks it withdrawn for as long as it could be used. A
// failure leaves the grant stored: Redis cannot be reached to remove it.
func (s *Store) withdraw(ctx context.Context, keys []string, g grant.Grant, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	_ = withdrawScript.Run(ctx, s.c, keys, g.ID, s.receiptLife(g, now).Milliseconds()).Err()
}

// Consume implements [grant.Store]: the candidates are read with HGETALL
// and matched here; each use is taken by a script that checks the grant is
// still there, unexpired, with uses left.
func (s *Store) Consume(ctx context.Context, q grant.Query, now time.Time) (grant.Use, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	key := s.Key(q.Principal)
	all, err := s.read(ctx, key)
	if err != nil {
		return grant.Use{}, err
	}
	var u grant.Use
	receipt := key + "r:" + newToken()
	for _, g := range all {
		covers := g.Covers(q)
		if !covers && g.Expires.After(now) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return u, s.fail("consume", err) // not sent: nothing to give back
		}
		res, err := consumeScript.Run(ctx, s.c, []string{key, receipt}, g.ID, now.UnixMilli(), b2i(covers), s.receiptLife(g, now).Milliseconds()).Slice()
		if err != nil {
			if covers && redisx.MayHaveRun(err) {
				// Redis may have taken a use for a call the guard now
				// asks about again: give it back by the receipt, or a
				// lost reply would spend a use the human granted.
				// Whatever go-redis reports (a late reply ends as
				// context.DeadlineExceeded once it retries), an
				// attempt may have run; an error reply may answer the
				// client's resend of a consume whose first reply was
				// lost.
				s.undo(context.WithoutCancel(ctx), key, receipt, g, now)
			}
			return u, s.fail("consume", err)
		}
		st, exp := reply(res)
		u.Expired = append(u.Expired, exp...)
		if st == 1 && covers {
			u.Grant = g
			u.Grant.Left = left(res)
			return u, nil
		}
	}
	return u, grant.ErrNoGrant
}

// receiptTTL is how long a use's receipt lives at least: past the
// consume's own timeout and the undo's, with a second to spare.
func (s *Store) receiptTTL() time.Duration { return 2*s.o.Timeout + time.Second }

// receiptLife is how long the receipt of a use or refund of g, or its
// undo, lives: as long as g can be used, like the principal's key (a
// minute past its expiry). The scripts carry no deadline, so a copy of
// a consume or refund held on its way to Redis (a congested path, a
// stalled proxy, the first copy of one go-redis sent again) can land any
// time while g is there: a shorter receipt let it take a second use, or
// a use its undo had already given back (red team rtp). Receipts are
// written for finite uses only, so a grant leaves at most its uses and
// refunds behind.
func (s *Store) receiptLife(g grant.Grant, now time.Time) time.Duration {
	return max(s.receiptTTL(), g.Expires.Sub(now)+time.Minute)
}

// undo gives back the use of g a consume at now may have taken before
// its reply was lost. A failure leaves the use taken: the human is asked
// again, never a use granted twice.
func (s *Store) undo(ctx context.Context, key, receipt string, g grant.Grant, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	_ = undoScript.Run(ctx, s.c, []string{key, receipt}, g.ID, g.Uses, s.receiptLife(g, now).Milliseconds()).Err()
}

// newToken is a random token naming one consume's receipt.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// read returns the grants stored under key, in the order of grant.Less;
// entries that do not decode are skipped (they cover nothing).
func (s *Store) read(ctx context.Context, key string) ([]grant.Grant, error) {
	m, err := s.c.HGetAll(ctx, key).Result()
	if err != nil {
		return nil, s.fail("read", err)
	}
	var out []grant.Grant
	for f, v := range m {
		if !strings.HasPrefix(f, "g:") {
			continue
		}
		if g, err := grant.Unmarshal([]byte(v)); err == nil {
			out = append(out, g)
		}
	}
	grant.Sort(out)
	return out, nil
}

// List implements [grant.Store]; principal "" scans every principal's key.
func (s *Store) List(ctx context.Context, principal string, now time.Time) ([]grant.Grant, []grant.Grant, error) {
	keys := []string{s.Key(principal)}
	if principal == "" {
		var err error
		if keys, err = s.scan(ctx); err != nil {
			return nil, nil, err
		}
	}
	var live, expired []grant.Grant
	for _, key := range keys {
		l, e, err := s.listKey(ctx, key, now)
		if err != nil {
			return nil, nil, err
		}
		live, expired = append(live, l...), append(expired, e...)
	}
	grant.Sort(live)
	grant.Sort(expired)
	return live, expired, nil
}

func (s *Store) listKey(ctx context.Context, key string, now time.Time) (live, expired []grant.Grant, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	all, err := s.read(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range all {
		res, err := consumeScript.Run(ctx, s.c, []string{key}, g.ID, now.UnixMilli(), 0).Slice()
		if err != nil {
			return nil, nil, s.fail("list", err)
		}
		st, exp := reply(res)
		expired = append(expired, exp...)
		if st == 1 {
			g.Left = left(res)
			live = append(live, g)
		}
	}
	return live, expired, nil
}

func (s *Store) scan(ctx context.Context) ([]string, error) {
	var keys []string
	var cursor uint64
	for {
		sctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
		ks, next, err := s.c.Scan(sctx, cursor, s.o.Prefix+"{*}", 1000).Result()
		cancel()
		if err != nil {
			return nil, s.fail("scan", err)
		}
		keys = append(keys, ks...)
		if cursor = next; cursor == 0 {
			return keys, nil
		}
	}
}

// Revoke implements [grant.Store].
func (s *Store) Revoke(ctx context.Context, principal, id string) (grant.Grant, error) {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	key := s.Key(principal)
	receipt := key + "r:" + newToken()
	if err := ctx.Err(); err != nil {
		return grant.Grant{}, s.fail("revoke", err) // not sent
	}
	v, err := revokeScript.Run(ctx, s.c, []string{key, receipt, key + "r:" + id}, id, s.receiptTTL().Milliseconds(), time.Now().UnixMilli(), (grant.MaxDuration + time.Minute).Milliseconds()).Text()
	if err != nil && err != redis.Nil && redisx.MayHaveRun(err) {
		// The revocation may have landed: its receipt tells, so that
		// the caller audits it (a retry would find no grant).
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), s.o.Timeout)
		if r, rerr := receiptScript.Run(rctx, s.c, []string{receipt}).Text(); rerr == nil {
			v, err = r, nil
		}
		rcancel()
	}
	if err == redis.Nil {
		return grant.Grant{}, grant.ErrNotFound
	}
	if err != nil {
		return grant.Grant{}, s.fail("revoke", err)
	}
	g, err := grant.Unmarshal([]byte(v))
	if err != nil || g.Principal != principal {
		return grant.Grant{}, fmt.Errorf("%w: revoked an undecodable grant", grant.ErrUnavailable)
	}
	return g, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Refund implements [grant.Store].
func (s *Store) Refund(ctx context.Context, g grant.Grant, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	key := s.Key(g.Principal)
	n, err := refundScript.Run(ctx, s.c, []string{key, key + "r:" + newToken()}, g.ID, now.UnixMilli(), g.Uses, s.receiptLife(g, now).Milliseconds()).Int64()
	if err != nil {
		return s.fail("refund", err)
	}
	if n != 1 {
		return grant.ErrNotFound
	}
	return nil
}
