package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// CredentialStore is an [approval.CredentialStore] in Redis. Keys:
//
//	P{creds}:c:<base64url credential ID>   hash: u (user handle), d (JSON), n (sign count)
//	P{creds}:u:<base64url user handle>     list of credential keys, oldest first
//	P{creds}:n                             credentials added (for Options.MaxCredentials)
type CredentialStore struct{ base }

var (
	_ approval.CredentialStore      = (*CredentialStore)(nil)
	_ approval.FirstCredentialAdder = (*CredentialStore)(nil)
)

// NewCredentialStore returns a CredentialStore on c, a go-redis client
// created with ContextTimeoutEnabled, after the server checks of
// [NewChallengeStore]. opts may be nil.
func NewCredentialStore(ctx context.Context, c redis.Cmdable, opts *Options) (*CredentialStore, error) {
	b, err := newBase(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	return &CredentialStore{b}, nil
}

func (s *CredentialStore) credKey(id []byte) string   { return s.prefix + "{creds}:c:" + b64(id) }
func (s *CredentialStore) userKey(user []byte) string { return s.prefix + "{creds}:u:" + b64(user) }
func (s *CredentialStore) countKey() string           { return s.prefix + "{creds}:n" }

// Add implements [approval.CredentialStore] in one script.
func (s *CredentialStore) Add(ctx context.Context, c *approval.Credential) error {
	return s.add(ctx, c, false)
}

// AddFirst implements [approval.FirstCredentialAdder] in one script.
func (s *CredentialStore) AddFirst(ctx context.Context, c *approval.Credential) error {
	return s.add(ctx, c, true)
}

func (s *CredentialStore) add(ctx context.Context, c *approval.Credential, first bool) error {
	if len(c.ID) == 0 || len(c.UserHandle) == 0 {
		return fmt.Errorf("%w: credential without ID or user handle", approval.ErrInvalidOptions)
	}
	d, err := json.Marshal(c)
	if err != nil {
		return err
	}
	onlyFirst := "0"
	if first {
		onlyFirst = "1"
	}
	v, err := s.run(ctx, "credential add", addScript, []string{s.credKey(c.ID), s.userKey(c.UserHandle), s.countKey()},
		c.UserHandle, d, c.SignCount, s.maxCredentialsPerUsr, s.maxCredentials, onlyFirst)
	if err != nil {
		return err
	}
	switch n, _ := v.(int64); n {
	case 1:
		return nil
	case 0:
		return fmt.Errorf("%w: credential ID enrolled already", approval.ErrDuplicate)
	case 2:
		return fmt.Errorf("%w: user has %d credentials, the maximum", approval.ErrCapacity, s.maxCredentialsPerUsr)
	case 3:
		return fmt.Errorf("%w: %d credentials enrolled (redisstore Options.MaxCredentials)", approval.ErrCapacity, s.maxCredentials)
	case 4:
		return approval.ErrHasCredentials
	}
	return fmt.Errorf("%w: redis credential add: unexpected reply %v", approval.ErrUnavailable, v)
}

// List implements [approval.CredentialStore] in one script.
func (s *CredentialStore) List(ctx context.Context, user []byte) ([]approval.Credential, error) {
	v, err := s.run(ctx, "credential list", listScript, []string{s.userKey(user)}, user)
	if err != nil {
		return nil, err
	}
	arr, _ := v.([]any)
	out := make([]approval.Credential, 0, len(arr)/2)
	for i := 0; i+1 < len(arr); i += 2 {
		c, err := decode(arr[i], arr[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, nil
}

// Get implements [approval.CredentialStore].
func (s *CredentialStore) Get(ctx context.Context, user, id []byte) (*approval.Credential, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	vals, err := s.c.HMGet(ctx, s.credKey(id), "u", "d", "n").Result()
	if err != nil {
		return nil, s.fail("credential get", err)
	}
	u, _ := vals[0].(string)
	if u == "" || u != string(user) {
		return nil, approval.ErrNotFound
	}
	return decode(vals[1], vals[2])
}

// UpdateCounter implements [approval.CredentialStore] in one script.
func (s *CredentialStore) UpdateCounter(ctx context.Context, user, id []byte, count uint32) error {
	v, err := s.run(ctx, "counter update", counterScript, []string{s.credKey(id)}, user, count)
	if err != nil {
		return err
	}
	switch n, _ := v.(int64); {
	case n == -1:
		return approval.ErrNotFound
	case n == -2:
		return nil
	case n >= 0:
		return fmt.Errorf("%w: stored %d, got %d", approval.ErrCounterNotAdvanced, n, count)
	}
	return fmt.Errorf("%w: redis counter update: unexpected reply %v", approval.ErrUnavailable, v)
}

func decode(d, n any) (*approval.Credential, error) {
	ds, _ := d.(string)
	var c approval.Credential
	if err := json.Unmarshal([]byte(ds), &c); err != nil {
		return nil, fmt.Errorf("%w: corrupt credential record", approval.ErrUnavailable)
	}
	var count uint64
	switch x := n.(type) {
	case string:
		count, _ = strconv.ParseUint(x, 10, 32)
	case int64:
		count = uint64(x)
	}
	c.SignCount = uint32(count)
	return &c, nil
}

var addScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[6] == '1' and redis.call('LLEN', KEYS[2]) > 0 then return 4 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
if tonumber(redis.call('GET', KEYS[3]) or '0') >= tonumber(ARGV[5]) then return 3 end
redis.call('HSET', KEYS[1], 'u', ARGV[1], 'd', ARGV[2], 'n', ARGV[3])
redis.call('RPUSH', KEYS[2], KEYS[1])
redis.call('INCR', KEYS[3])
return 1`)

// listScript returns d, n pairs of the user's credentials that still name
// the user as owner.
var listScript = redis.NewScript(`
local out = {}
for _, k in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local v = redis.call('HMGET', k, 'u', 'd', 'n')
  if v[1] == ARGV[1] then
    out[#out+1] = v[2]
    out[#out+1] = v[3]
  end
end
return out`)

// counterScript: -1 unknown (or another user's), -2 stored, else the stored
// count that was not exceeded.
var counterScript = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], 'u', 'n')
if not v[1] or v[1] ~= ARGV[1] then return -1 end
local stored = tonumber(v[2])
local count = tonumber(ARGV[2])
if count > stored or (count == 0 and stored == 0) then
  redis.call('HSET', KEYS[1], 'n', ARGV[2])
  return -2
end
return stored`)
