package redisstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/internal/redisx"
)

// Defaults of [Options].
const (
	DefaultPrefix    = "gatehouse:approval:"
	DefaultTimeout   = 500 * time.Millisecond
	DefaultRetention = time.Minute
)

// maxIDLen bounds a challenge ID used in a key name.
const maxIDLen = 128

// Options configure the stores. nil means defaults; zero fields too.
type Options struct {
	// Prefix starts every key (default "gatehouse:approval:"); it must not
	// contain '{' or '}'.
	Prefix string
	// Timeout bounds each operation (default 500ms).
	Timeout time.Duration
	// Retention keeps a challenge past its ExpiresAt (default one minute) so
	// it reports consumed or expired rather than unknown.
	Retention time.Duration
	// MaxPendingPerUser caps the pending challenges (neither consumed nor
	// expired) of one user handle (default 64), so that one user cannot
	// fill Redis for everyone; Put beyond it fails with ErrCapacity.
	MaxPendingPerUser int
	// MaxCredentialsPerUser caps enrollments per user (default 16).
	MaxCredentialsPerUser int
	// MaxCredentials caps enrolled credentials in total (default 100,000),
	// counted from the first Add through this package.
	MaxCredentials int
	// AcceptEviction accepts a Redis whose maxmemory-policy may evict keys;
	// by default the constructors refuse it (an eviction could drop a
	// consumed challenge's record or an enrolled credential).
	AcceptEviction bool
	// RequireDurable refuses a Redis without AOF (appendonly yes); without
	// it such a Redis is accepted and Warn is told.
	RequireDurable bool
	// Warn receives warnings found at construction; nil means
	// slog.Default().Warn.
	Warn func(msg string)
}

type base struct {
	c                    redis.Cmdable
	prefix               string
	timeout, retention   time.Duration
	maxPendingPerUser    int
	maxCredentialsPerUsr int
	maxCredentials       int
}

func newBase(ctx context.Context, c redis.Cmdable, opts *Options) (base, error) {
	b := base{c: c, prefix: DefaultPrefix, timeout: DefaultTimeout, retention: DefaultRetention,
		maxPendingPerUser: approval.DefaultMaxPendingPerUser, maxCredentialsPerUsr: approval.DefaultMaxCredentialsPerUser,
		maxCredentials: approval.DefaultMaxCredentials}
	if c == nil {
		return b, fmt.Errorf("%w: redisstore: nil client", approval.ErrInvalidOptions)
	}
	var honours = true
	switch c := c.(type) {
	case *redis.Client:
		honours = c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		honours = c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		honours = c.Options().ContextTimeoutEnabled
	}
	if !honours {
		return b, fmt.Errorf("%w: redisstore: create the go-redis client with ContextTimeoutEnabled: true, or a hung Redis would block calls past Options.Timeout", approval.ErrInvalidOptions)
	}
	if opts != nil {
		if opts.Timeout < 0 || opts.Retention < 0 || opts.MaxPendingPerUser < 0 || opts.MaxCredentialsPerUser < 0 || opts.MaxCredentials < 0 {
			return b, fmt.Errorf("%w: redisstore Options fields must be >= 0", approval.ErrInvalidOptions)
		}
		if opts.Prefix != "" {
			b.prefix = opts.Prefix
		}
		if opts.Timeout > 0 {
			b.timeout = opts.Timeout
		}
		if opts.Retention > 0 {
			b.retention = opts.Retention
		}
		if opts.MaxPendingPerUser > 0 {
			b.maxPendingPerUser = opts.MaxPendingPerUser
		}
		if opts.MaxCredentialsPerUser > 0 {
			b.maxCredentialsPerUsr = opts.MaxCredentialsPerUser
		}
		if opts.MaxCredentials > 0 {
			b.maxCredentials = opts.MaxCredentials
		}
	}
	if strings.ContainsAny(b.prefix, "{}") {
		return b, fmt.Errorf("%w: redisstore Options.Prefix %q contains '{' or '}'", approval.ErrInvalidOptions, b.prefix)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	// Issue 17: the server must not evict keys, and may be required to
	// persist every write; INFO works where CONFIG is blocked.
	err := redisx.Verify(ctx, c, redisx.HealthOptions{AcceptEviction: o.AcceptEviction, RequireDurable: o.RequireDurable},
		b.timeout, "approval/redisstore", o.Warn, approval.ErrInvalidOptions, approval.ErrUnavailable)
	return b, err
}

func (b *base) fail(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: redis %s: no answer within %v: %v", approval.ErrUnavailable, op, b.timeout, err)
	}
	return fmt.Errorf("%w: redis %s: %v", approval.ErrUnavailable, op, err)
}

func (b *base) run(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	v, err := sc.Run(ctx, b.c, keys, args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, b.fail(op, err)
	}
	return v, nil
}

func b64(x []byte) string { return base64.RawURLEncoding.EncodeToString(x) }

// ChallengeStore is an [approval.ChallengeStore] in Redis.
type ChallengeStore struct{ base }

var _ approval.ChallengeStore = (*ChallengeStore)(nil)

// NewChallengeStore returns a ChallengeStore on c, a go-redis client created
// with ContextTimeoutEnabled, after checking the server (INFO): a
// maxmemory-policy other than noeviction is refused unless
// Options.AcceptEviction, appendonly no under Options.RequireDurable.
// opts may be nil.
func NewChallengeStore(ctx context.Context, c redis.Cmdable, opts *Options) (*ChallengeStore, error) {
	b, err := newBase(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	return &ChallengeStore{b}, nil
}

func (s *ChallengeStore) key(id string) string { return s.prefix + "ch:{" + id + "}" }

// pendingKey names the sorted set of a user's pending challenge IDs, scored
// by ExpiresAt (Unix ms); user is the base64url user handle, as stored in
// the challenge's 'u' field.
func (s *ChallengeStore) pendingKey(user string) string { return s.prefix + "pu:{" + user + "}" }

func checkID(id string) error {
	if id == "" || len(id) > maxIDLen {
		return approval.ErrNotFound
	}
	return nil
}

// challengeData is the stored form; Consumed lives in its own field.
type challengeData struct {
	Kind       approval.Kind `json:"k"`
	UserHandle []byte        `json:"u"`
	Tool       string        `json:"t,omitempty"`
	Definition string        `json:"d,omitempty"`
	ActionHash []byte        `json:"h,omitempty"`
	Bytes      []byte        `json:"b"`
	ExpiresAt  int64         `json:"e"` // Unix ms
}

// Put implements [approval.ChallengeStore].
func (s *ChallengeStore) Put(ctx context.Context, c *approval.Challenge, now time.Time) error {
	if c.ID == "" || len(c.ID) > maxIDLen {
		return fmt.Errorf("%w: challenge ID of %d bytes", approval.ErrInvalidOptions, len(c.ID))
	}
	d, err := json.Marshal(challengeData{Kind: c.Kind, UserHandle: c.UserHandle, Tool: c.Tool, Definition: c.Definition, ActionHash: c.ActionHash[:], Bytes: c.Bytes, ExpiresAt: c.ExpiresAt.UnixMilli()})
	if err != nil {
		return err
	}
	ttl := c.ExpiresAt.Sub(now) + s.retention
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	// The per-user reservation and the challenge live in different hash
	// slots, so they are two scripts: reserve, put, and release the
	// reservation if the put fails.
	user := b64(c.UserHandle)
	pending := now.Before(c.ExpiresAt)
	if pending {
		v, err := s.run(ctx, "challenge reserve", reserveScript, []string{s.pendingKey(user)},
			now.UnixMilli(), c.ExpiresAt.UnixMilli(), c.ID, s.maxPendingPerUser)
		if err != nil {
			return err
		}
		switch n, _ := v.(int64); n {
		case 1:
		case 0:
			return fmt.Errorf("%w: the user has %d pending challenges (redisstore Options.MaxPendingPerUser); retry when one is used or expires", approval.ErrCapacity, s.maxPendingPerUser)
		case 2:
			return fmt.Errorf("%w: challenge id", approval.ErrDuplicate)
		default:
			return fmt.Errorf("%w: redis challenge reserve: unexpected reply %v", approval.ErrUnavailable, v)
		}
	}
	v, err := s.run(ctx, "challenge put", putScript, []string{s.key(c.ID)}, d, c.ExpiresAt.UnixMilli(), ttl.Milliseconds(), user)
	if n, _ := v.(int64); err != nil || n != 1 {
		if pending {
			s.release(ctx, user, c.ID)
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: challenge id", approval.ErrDuplicate)
	}
	return nil
}

// release drops id from the user's pending set. A failure is ignored: the
// entry leaves the set by itself once its ExpiresAt has passed.
func (s *ChallengeStore) release(ctx context.Context, user, id string) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_ = s.c.ZRem(ctx, s.pendingKey(user), id).Err()
}

// Get implements [approval.ChallengeStore].
func (s *ChallengeStore) Get(ctx context.Context, id string, _ time.Time) (*approval.Challenge, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	vals, err := s.c.HMGet(ctx, s.key(id), "d", "s").Result()
	if err != nil {
		return nil, s.fail("challenge get", err)
	}
	d, _ := vals[0].(string)
	st, _ := vals[1].(string)
	if d == "" {
		return nil, approval.ErrNotFound
	}
	var cd challengeData
	if err := json.Unmarshal([]byte(d), &cd); err != nil || len(cd.ActionHash) > 32 {
		return nil, fmt.Errorf("%w: corrupt challenge record", approval.ErrUnavailable)
	}
	c := &approval.Challenge{ID: id, Kind: cd.Kind, UserHandle: cd.UserHandle, Tool: cd.Tool, Definition: cd.Definition, Bytes: cd.Bytes,
		ExpiresAt: time.UnixMilli(cd.ExpiresAt).UTC(), Consumed: st == "c"}
	copy(c.ActionHash[:], cd.ActionHash)
	return c, nil
}

// Consume implements [approval.ChallengeStore] in one script.
func (s *ChallengeStore) Consume(ctx context.Context, id string, now time.Time) error {
	if err := checkID(id); err != nil {
		return err
	}
	v, err := s.run(ctx, "challenge consume", consumeScript, []string{s.key(id)}, now.UnixMilli())
	if err != nil {
		return err
	}
	if r, ok := v.([]any); ok && len(r) == 2 { // consumed: {2, base64url user handle}
		if n, _ := r[0].(int64); n == 2 {
			if u, _ := r[1].(string); u != "" {
				s.release(ctx, u, id)
			}
			return nil
		}
	}
	switch n, _ := v.(int64); n {
	case 1:
		return approval.ErrConsumed
	case 3:
		return approval.ErrExpired
	case 0:
		return approval.ErrNotFound
	}
	return fmt.Errorf("%w: redis challenge consume: unexpected reply %v", approval.ErrUnavailable, v)
}

var putScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'd', ARGV[1], 'e', ARGV[2], 's', 'p', 'u', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// reserveScript: ARGV now, expiresAt, id, cap. Drops expired entries, then
// adds id unless the user is at the cap (0) or id is there already (2).
// The set lives until its latest entry expires.
var reserveScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - tonumber(ARGV[1])))
return 1`)

var consumeScript = redis.NewScript(`
local st = redis.call('HGET', KEYS[1], 's')
if not st then return 0 end
if st == 'c' then return 1 end
if tonumber(ARGV[1]) >= tonumber(redis.call('HGET', KEYS[1], 'e')) then return 3 end
redis.call('HSET', KEYS[1], 's', 'c')
return {2, redis.call('HGET', KEYS[1], 'u') or ''}`)
