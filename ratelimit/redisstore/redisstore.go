package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redisx"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Options configure a [Store]. nil means defaults; zero fields too.
type Options struct {
	// Prefix starts every key (default "gatehouse:rl:"). Give each
	// deployment sharing a Redis its own. It must not contain '{' or '}'.
	Prefix string
	// Timeout bounds each operation, on top of the caller's context
	// (default 500ms). A check that takes longer fails closed with
	// [ratelimit.ErrUnavailable].
	Timeout time.Duration
}

// DefaultPrefix is the key prefix when Options.Prefix is empty.
const DefaultPrefix = "gatehouse:rl:"

// DefaultTimeout is the per-operation timeout when Options.Timeout is zero.
const DefaultTimeout = 500 * time.Millisecond

// expirySlack keeps keys a while past their logical expiry, so that a caller
// clock a little behind Redis's never sees state vanish early.
const expirySlack = time.Minute

// Store is a [ratelimit.Store] in Redis, shared by every process using the
// same Redis and prefix. Every check-and-write is one Lua script, so one
// round trip and atomic. A Store is safe for concurrent use and starts no
// goroutines; the client belongs to the caller, who closes it.
type Store struct {
	c       redis.Scripter
	prefix  string
	timeout time.Duration
}

var _ ratelimit.Store = (*Store)(nil)

// New returns a Store using c: a *redis.Client, *redis.ClusterClient or
// *redis.Ring created with ContextTimeoutEnabled set, since go-redis ignores
// context deadlines otherwise and Options.Timeout could not bound a call to
// a hung Redis. New rejects those three client types without it; another
// [redis.Scripter] must honour context deadlines itself. opts may be nil.
func New(c redis.Scripter, opts *Options) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redisstore.New: nil client", ratelimit.ErrInvalidOptions)
	}
	if !redisx.HonoursDeadlines(c) {
		return nil, fmt.Errorf("%w: redisstore.New: the go-redis client must be created with ContextTimeoutEnabled: true, or a hung Redis would block checks past Options.Timeout", ratelimit.ErrInvalidOptions)
	}
	s := &Store{c: c, prefix: DefaultPrefix, timeout: DefaultTimeout}
	if opts != nil {
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		if opts.Timeout < 0 {
			return nil, fmt.Errorf("%w: redisstore Options.Timeout is %v, want >= 0 (0 means %v)", ratelimit.ErrInvalidOptions, opts.Timeout, DefaultTimeout)
		}
		if opts.Timeout > 0 {
			s.timeout = opts.Timeout
		}
	}
	if strings.ContainsAny(s.prefix, "{}") {
		return nil, fmt.Errorf("%w: redisstore Options.Prefix %q contains '{' or '}', which Redis Cluster reads as a hash tag", ratelimit.ErrInvalidOptions, s.prefix)
	}
	return s, nil
}

// Keys, all under the prefix P. The part in braces is a Redis Cluster hash
// tag, so every key one script touches is in the same slot:
//
//	P r:{key}                   token bucket (GCRA TAT) of a rate key
//	P b:{scope}:name            budget counter
//	P c:{scope}                 conversation hash: last, fp, rep
//	P c:{scope}:step            reservation of one step: token|expiry
func (s *Store) rateKey(key string) string { return s.prefix + "r:{" + key + "}" }
func (s *Store) budgetKey(scope, name string) string {
	return s.prefix + "b:{" + scope + "}:" + name
}
func (s *Store) convKey(scope string) string { return s.prefix + "c:{" + scope + "}" }
func (s *Store) stepKey(scope string, step int64) string {
	return s.prefix + "c:{" + scope + "}:" + strconv.FormatInt(step, 10)
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// fail wraps a Redis error so it says what failed and that it fails closed.
func (s *Store) fail(op string, err error) error {
	why := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		why = fmt.Sprintf("no answer within %v (Options.Timeout or the caller's deadline): %v", s.timeout, err)
	}
	return fmt.Errorf("%w: redis %s: %s", ratelimit.ErrUnavailable, op, why)
}

func (s *Store) run(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := sc.Run(ctx, s.c, keys, args...).Result()
	if err != nil {
		return nil, s.fail(op, err)
	}
	return v, nil
}

// ints reads a reply of n integers.
func (s *Store) ints(op string, v any, n int) ([]int64, error) {
	arr, ok := v.([]any)
	if !ok || (n > 0 && len(arr) != n) {
		return nil, fmt.Errorf("%w: redis %s: unexpected reply %T of %d elements", ratelimit.ErrUnavailable, op, v, len(arr))
	}
	out := make([]int64, len(arr))
	for i, e := range arr {
		x, ok := e.(int64)
		if !ok {
			return nil, fmt.Errorf("%w: redis %s: unexpected reply element %T", ratelimit.ErrUnavailable, op, e)
		}
		out[i] = x
	}
	return out, nil
}

// Take implements [ratelimit.RateStore] with GCRA in one script call.
func (s *Store) Take(ctx context.Context, key string, r ratelimit.Rate, now time.Time) (ratelimit.Result, error) {
	res := ratelimit.Result{Limit: r}
	if !r.Valid() {
		return res, fmt.Errorf("%w: %d per %v", ratelimit.ErrInvalidRate, r.N, r.Per)
	}
	if err := ratelimit.CheckKey("rate key", key); err != nil {
		return res, err
	}
	v, err := s.run(ctx, "rate check", rateScript, []string{s.rateKey(key)},
		micros(now), r.Per.Microseconds(), r.N, expirySlack.Milliseconds())
	if err != nil {
		return res, err
	}
	out, err := s.ints("rate check", v, 3)
	if err != nil {
		return res, err
	}
	res.Allowed = out[0] == 1
	res.Remaining = int(out[1])
	if !res.Allowed {
		res.Remaining = 0
		res.RetryAfter = time.Duration(out[2]) * time.Microsecond
	}
	return res, nil
}

// Spend implements [ratelimit.BudgetStore] in one script call.
func (s *Store) Spend(ctx context.Context, scope string, counters []ratelimit.Counter, mode ratelimit.SpendMode, now time.Time) (ratelimit.SpendResult, error) {
	res := ratelimit.SpendResult{Failed: -1}
	if err := ratelimit.CheckSpend(scope, counters, mode); err != nil {
		return res, err
	}
	keys := make([]string, len(counters))
	args := make([]any, 0, 1+3*len(counters))
	args = append(args, int(mode))
	for i, c := range counters {
		keys[i] = s.budgetKey(scope, c.Name)
		ttl := (c.TTL + time.Millisecond - 1).Milliseconds()
		args = append(args, c.Add, c.Max, ttl)
	}
	v, err := s.run(ctx, "budget spend", budgetScript, keys, args...)
	if err != nil {
		return res, err
	}
	out, err := s.ints("budget spend", v, len(counters)+1)
	if err != nil {
		return res, err
	}
	res.Failed = int(out[0])
	res.Values = out[1:]
	return res, nil
}

// Reserve implements [ratelimit.StepStore] in one script call.
func (s *Store) Reserve(ctx context.Context, scope string, step int64, fp ratelimit.Fingerprint, p ratelimit.StepParams, now time.Time) (ratelimit.StepResult, error) {
	if err := ratelimit.CheckStepArgs(scope, step, p); err != nil {
		return ratelimit.StepResult{}, err
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	token := hex.EncodeToString(b[:])
	v, err := s.run(ctx, "step reserve", reserveScript, []string{s.convKey(scope), s.stepKey(scope, step)},
		step, fp.String(), p.MaxRepeats, micros(now), p.ReservationTTL.Microseconds(), token,
		(p.ReservationTTL + expirySlack).Milliseconds())
	if err != nil {
		return ratelimit.StepResult{}, err
	}
	out, err := s.ints("step reserve", v, 3)
	if err != nil {
		return ratelimit.StepResult{}, err
	}
	res := ratelimit.StepResult{Status: ratelimit.StepStatus(out[0]), LastCommitted: out[1], Repeats: int(out[2])}
	if res.Status == ratelimit.StepOK {
		res.Token = token
	}
	return res, nil
}

// Commit implements [ratelimit.StepStore] in one script call.
func (s *Store) Commit(ctx context.Context, scope string, step int64, token string, fp ratelimit.Fingerprint, p ratelimit.StepParams, now time.Time) (ratelimit.StepStatus, error) {
	if err := ratelimit.CheckStepArgs(scope, step, p); err != nil {
		return 0, err
	}
	v, err := s.run(ctx, "step commit", commitScript, []string{s.convKey(scope), s.stepKey(scope, step)},
		step, token, fp.String(), p.MaxRepeats, micros(now), (p.ConversationTTL + expirySlack).Milliseconds())
	if err != nil {
		return 0, err
	}
	st, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("%w: redis step commit: unexpected reply %T", ratelimit.ErrUnavailable, v)
	}
	return ratelimit.StepStatus(st), nil
}

// Release implements [ratelimit.StepStore] in one script call.
func (s *Store) Release(ctx context.Context, scope string, step int64, token string) error {
	if err := ratelimit.CheckKey("conversation scope", scope); err != nil {
		return err
	}
	_, err := s.run(ctx, "step release", releaseScript, []string{s.stepKey(scope, step)}, token)
	return err
}
