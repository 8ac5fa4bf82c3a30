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
	// MaxCredentialsPerUser caps enrollments per user (default 16).
	MaxCredentialsPerUser int
}

type base struct {
	c                    redis.Cmdable
	prefix               string
	timeout, retention   time.Duration
	maxCredentialsPerUsr int
}

func newBase(c redis.Cmdable, opts *Options) (base, error) {
	b := base{c: c, prefix: DefaultPrefix, timeout: DefaultTimeout, retention: DefaultRetention, maxCredentialsPerUsr: approval.DefaultMaxCredentialsPerUser}
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
		if opts.Timeout < 0 || opts.Retention < 0 || opts.MaxCredentialsPerUser < 0 {
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
		if opts.MaxCredentialsPerUser > 0 {
			b.maxCredentialsPerUsr = opts.MaxCredentialsPerUser
		}
	}
	if strings.ContainsAny(b.prefix, "{}") {
		return b, fmt.Errorf("%w: redisstore Options.Prefix %q contains '{' or '}'", approval.ErrInvalidOptions, b.prefix)
	}
	return b, nil
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
// with ContextTimeoutEnabled. opts may be nil.
func NewChallengeStore(c redis.Cmdable, opts *Options) (*ChallengeStore, error) {
	b, err := newBase(c, opts)
	if err != nil {
		return nil, err
	}
	return &ChallengeStore{b}, nil
}

func (s *ChallengeStore) key(id string) string { return s.prefix + "ch:{" + id + "}" }

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
	ActionHash []byte        `json:"h,omitempty"`
	Bytes      []byte        `json:"b"`
	ExpiresAt  int64         `json:"e"` // Unix ms
}

// Put implements [approval.ChallengeStore].
func (s *ChallengeStore) Put(ctx context.Context, c *approval.Challenge, now time.Time) error {
	if c.ID == "" || len(c.ID) > maxIDLen {
		return fmt.Errorf("%w: challenge ID of %d bytes", approval.ErrInvalidOptions, len(c.ID))
	}
	d, err := json.Marshal(challengeData{Kind: c.Kind, UserHandle: c.UserHandle, Tool: c.Tool, ActionHash: c.ActionHash[:], Bytes: c.Bytes, ExpiresAt: c.ExpiresAt.UnixMilli()})
	if err != nil {
		return err
	}
	ttl := c.ExpiresAt.Sub(now) + s.retention
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	v, err := s.run(ctx, "challenge put", putScript, []string{s.key(c.ID)}, d, c.ExpiresAt.UnixMilli(), ttl.Milliseconds())
	if err != nil {
		return err
	}
	if n, _ := v.(int64); n != 1 {
		return fmt.Errorf("%w: challenge id", approval.ErrDuplicate)
	}
	return nil
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
	c := &approval.Challenge{ID: id, Kind: cd.Kind, UserHandle: cd.UserHandle, Tool: cd.Tool, Bytes: cd.Bytes,
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
	switch n, _ := v.(int64); n {
	case 2:
		return nil
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
redis.call('HSET', KEYS[1], 'd', ARGV[1], 'e', ARGV[2], 's', 'p')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

var consumeScript = redis.NewScript(`
local st = redis.call('HGET', KEYS[1], 's')
if not st then return 0 end
if st == 'c' then return 1 end
if tonumber(ARGV[1]) >= tonumber(redis.call('HGET', KEYS[1], 'e')) then return 3 end
redis.call('HSET', KEYS[1], 's', 'c')
return 2`)
