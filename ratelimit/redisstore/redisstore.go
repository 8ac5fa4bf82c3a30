package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gatehouse-dev/gatehouse/internal/redisx"
	"github.com/gatehouse-dev/gatehouse/ratelimit"
)

// Client is what a [Store] needs of a go-redis client: scripts and INFO.
// *redis.Client, *redis.ClusterClient and *redis.Ring implement it.
type Client interface {
	redis.Scripter
	Info(ctx context.Context, section ...string) *redis.StringCmd
}

// Store is a [ratelimit.Store] in Redis, shared by every process using the
// same Redis and prefix. Every check-and-write is one Lua script, so one
// round trip and atomic. A Store is safe for concurrent use and starts no
// goroutines; the client belongs to the caller, who closes it.
type Store struct {
	c        Client
	prefix   string
	timeout  time.Duration
	queue    time.Duration
	slots    chan struct{}
	server   bool
	perOwner int
	rateCap  int // caps on live identities; 0 when off
	budCap   int
	convCap  int
	marker   string // "" when lost-data detection is off
	lost     string // the loss key; "" when lost counters are accepted
	known    string // the marker's value New read, in µs
	boxed    boxedArgs
	skew     time.Duration
	health   redisx.Health
	born     time.Time

	healthOpts   redisx.HealthOptions
	recheckEvery time.Duration
	nextCheck    atomic.Int64 // UnixNano of the next server check
	healthErr    atomic.Pointer[error]
}

var _ ratelimit.Store = (*Store)(nil)

// New checks the server and returns a Store using c: a *redis.Client,
// *redis.ClusterClient or *redis.Ring created with ContextTimeoutEnabled
// set, since go-redis ignores context deadlines otherwise and
// Options.Timeout could not bound a call to a hung Redis. opts may be nil.
//
// New reads INFO memory and INFO persistence: a maxmemory-policy other
// than noeviction is refused unless Options.AcceptEviction, and a server
// without AOF is refused under Options.RequireDurable (errors wrap
// [ratelimit.ErrInvalidOptions]). It then reads or creates the marker key
// "<prefix>marker", which has no expiry: a Redis that lost its data has
// none, and for one ConversationTTL after a new marker, conversations that
// are unknown past step 1 are refused (CodeStateLost).
func New(ctx context.Context, c Client, opts *Options) (*Store, error) {
	s, err := newStore(c, opts)
	if err != nil {
		return nil, err
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	s.healthOpts = redisx.HealthOptions{AcceptEviction: o.AcceptEviction, RequireDurable: o.RequireDurable}
	s.recheckEvery = DefaultRecheck
	if o.Recheck > 0 {
		s.recheckEvery = o.Recheck
	}
	s.nextCheck.Store(time.Now().Add(s.recheckEvery).UnixNano())
	s.health, err = redisx.Check(cctx, c, s.healthOpts)
	switch {
	case errors.Is(err, redisx.ErrEviction), errors.Is(err, redisx.ErrNotDurable):
		return nil, fmt.Errorf("%w: redisstore.New: %w", ratelimit.ErrInvalidOptions, err)
	case err != nil:
		return nil, fmt.Errorf("%w: redisstore.New: %w", ratelimit.ErrUnavailable, err)
	}
	warn := o.Warn
	if warn == nil {
		warn = func(msg string) { slog.Default().Warn(msg) }
	}
	for _, w := range s.health.Warnings {
		warn("redisstore: " + w)
	}
	if o.AcceptDataLoss {
		s.box()
		return s, nil
	}
	switch c.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return nil, fmt.Errorf("%w: redisstore.New: lost-data detection needs one marker per server, which Redis Cluster and Ring cannot give; set Options.AcceptDataLoss to use them", ratelimit.ErrInvalidOptions)
	}
	s.marker = s.prefix + markerName
	t0 := time.Now()
	m, err := redisx.Marker(cctx, c, s.marker)
	if err != nil {
		return nil, fmt.Errorf("%w: redisstore.New: %w", ratelimit.ErrUnavailable, err)
	}
	s.born = m.Born
	s.known = strconv.FormatInt(m.Born.UnixMicro(), 10)
	if !o.AcceptLostCounters {
		s.lost = s.prefix + lostName
	}
	// The server's clock minus ours, to turn deadlines into server time.
	s.skew = m.Now.Sub(t0.Add(time.Since(t0) / 2))
	s.box()
	return s, nil
}

func newStore(c Client, opts *Options) (*Store, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: redisstore.New: nil client", ratelimit.ErrInvalidOptions)
	}
	if !redisx.HonoursDeadlines(c) {
		return nil, fmt.Errorf("%w: redisstore.New: the go-redis client must be created with ContextTimeoutEnabled: true, or a hung Redis would block checks past Options.Timeout", ratelimit.ErrInvalidOptions)
	}
	s := &Store{c: c, prefix: DefaultPrefix, timeout: DefaultTimeout, queue: DefaultQueueTimeout, perOwner: DefaultPerOwner}
	slots := 10 * runtime.GOMAXPROCS(0)
	if rc, ok := c.(*redis.Client); ok {
		slots = rc.Options().PoolSize
	}
	if opts != nil {
		if opts.Prefix != "" {
			s.prefix = opts.Prefix
		}
		if opts.Timeout < 0 || opts.QueueTimeout < 0 || opts.MaxConcurrent < 0 || opts.MaxConversationsPerOwner < 0 {
			return nil, fmt.Errorf("%w: redisstore Options has Timeout %v, QueueTimeout %v, MaxConcurrent %d, MaxConversationsPerOwner %d; want >= 0 (0 means default)",
				ratelimit.ErrInvalidOptions, opts.Timeout, opts.QueueTimeout, opts.MaxConcurrent, opts.MaxConversationsPerOwner)
		}
		if opts.MaxConversationsPerOwner > 0 {
			s.perOwner = opts.MaxConversationsPerOwner
		}
		if opts.Timeout > 0 {
			s.timeout = opts.Timeout
		}
		if opts.QueueTimeout > 0 {
			s.queue = opts.QueueTimeout
		}
		if opts.MaxConcurrent > 0 {
			slots = opts.MaxConcurrent
		}
		s.server = opts.ServerClock
	}
	if err := s.setCaps(c, opts); err != nil {
		return nil, err
	}
	if strings.ContainsAny(s.prefix, "{}") {
		return nil, fmt.Errorf("%w: redisstore Options.Prefix %q contains '{' or '}', which Redis Cluster reads as a hash tag", ratelimit.ErrInvalidOptions, s.prefix)
	}
	s.slots = make(chan struct{}, max(slots, 1))
	return s, nil
}

// Health returns what [New] learned about the server.
func (s *Store) Health() redisx.Health { return s.health }

// Keys, all under the prefix P. The part in braces is a Redis Cluster hash
// tag, so every key one script touches is in the same slot:
//
//	P r:{key}                   token bucket (GCRA TAT) of a rate key
//	P b:{scope}:name            budget counter
//	P b:{scope}!token           a budget write's receipt, for receiptTTL (a few seconds)
//	P bm:{scope}                the scope's counters: key -> limit; "=" -> level (caps)
//	P c:{owner}len:scope        conversation hash: last, fp, rep, seen, ok, oks, okt (last commit's token, step, time)
//	P c:{owner}len:scope:step   reservation of one step: token|expiry; or, a few seconds, =token of its commit, when another came soon after
//	P c:{owner}len:scope:step!token  a released reservation's token, for receiptTTL (a few seconds)
//	P o:{owner}                 the owner's live conversations, scored by expiry
//	P marker:2                  when this Redis's data began (no expiry)
//	P lost:2                    when it last lost its data, if seen (no expiry)
func (s *Store) rateKey(key string) string { return s.prefix + "r:{" + key + "}" }
func (s *Store) budgetKey(scope, name string) string {
	return s.prefix + "b:{" + scope + "}:" + name
}

// receiptKey is the receipt of one write of scope's budget, by its
// token; no counter name follows "}!".
func (s *Store) receiptKey(scope, token string) string {
	return s.prefix + "b:{" + scope + "}!" + token
}

// convKey tags a conversation with its owner, so that the owner's set of
// live conversations is in the same slot; the scope follows with its
// length, so that no conversation key is another's step key.
func (s *Store) convKey(scope string) string {
	return s.prefix + "c:{" + ratelimit.Owner(scope) + "}" + strconv.Itoa(len(scope)) + ":" + scope
}
func (s *Store) stepKey(scope string, step int64) string {
	return s.convKey(scope) + ":" + strconv.FormatInt(step, 10)
}
func (s *Store) ownerKey(scope string) string { return s.prefix + "o:{" + ratelimit.Owner(scope) + "}" }

// markerName is the marker key under the prefix. It changes with the key
// layout, so that state kept under an older layout counts as lost (fails
// closed for one ConversationTTL) instead of being silently ignored.
const markerName = "marker:2"

// lostName is the loss key under the prefix: the birth of the marker that
// replaced a lost one, written by the first script that sees the loss.
const lostName = "lost:2"

// lossKeys appends the marker and the loss key when lost counters fail
// closed.
func (s *Store) lossKeys(keys []string) []string {
	if s.marker == "" || s.lost == "" {
		return keys
	}
	return append(keys, s.marker, s.lost)
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// fail wraps a Redis error so it says what failed and that it fails closed.
func (s *Store) fail(op string, err error) error {
	why := err.Error()
	switch {
	case redisx.IsOOM(err):
		return &ratelimit.CapacityError{What: "redis memory", Cap: "redis maxmemory", Hint: "redis refused the " + op + " at maxmemory (noeviction); raise maxmemory or lower the key caps"}
	case errors.Is(err, context.DeadlineExceeded):
		why = fmt.Sprintf("no answer within %v (Options.Timeout or the caller's deadline): %v", s.timeout, err)
	}
	return fmt.Errorf("%w: redis %s: %s", ratelimit.ErrUnavailable, op, why)
}

// acquire waits for a slot, at most QueueTimeout and the caller's deadline,
// and returns how long it waited.
func (s *Store) acquire(ctx context.Context, op string) (time.Duration, error) {
	select {
	case s.slots <- struct{}{}:
		return 0, nil
	default:
	}
	t0 := time.Now()
	tm := time.NewTimer(s.queue)
	defer tm.Stop()
	select {
	case s.slots <- struct{}{}:
		return time.Since(t0), nil
	case <-tm.C:
		return 0, &ratelimit.CapacityError{What: "redis operations in flight", Cap: "redisstore Options.MaxConcurrent", Limit: cap(s.slots),
			Hint: fmt.Sprintf("no slot for the %s within Options.QueueTimeout (%v); retry shortly, or raise MaxConcurrent with the client's PoolSize", op, s.queue)}
	case <-ctx.Done():
		return 0, fmt.Errorf("%w: redis %s: the caller gave up waiting for a connection: %v", ratelimit.ErrUnavailable, op, ctx.Err())
	}
}

// run runs sc after the common arguments: the deadline in server time
// (microseconds; the script does nothing past it) and now in microseconds,
// or "" to use Redis TIME. now is the caller's, moved on by the time spent
// waiting for a slot, so that it is taken in effect once a connection is
// held.
func (s *Store) run(ctx context.Context, op string, sc *redis.Script, keys []string, now time.Time, args ...any) (any, error) {
	if err := s.recheck(ctx); err != nil {
		return nil, err
	}
	return s.exec(ctx, op, sc, keys, now, args...)
}

// undo runs a script that takes back what a write may have left (an
// uncharge, a release) without waiting on the server check: it only
// lowers state, and a check that fell due and failed while the write's
// reply was lost (the same hiccup) would leave the denied call charged
// or its step reserved (red team rtp).
func (s *Store) undo(ctx context.Context, op string, sc *redis.Script, keys []string, args ...any) (any, error) {
	return s.exec(ctx, op, sc, keys, time.Time{}, args...)
}

// exec is run without the server check.
func (s *Store) exec(ctx context.Context, op string, sc *redis.Script, keys []string, now time.Time, args ...any) (any, error) {
	waited, err := s.acquire(ctx, op)
	if err != nil {
		return nil, err
	}
	defer func() { <-s.slots }()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	dl, _ := ctx.Deadline()
	// Keep a tenth of the remaining time for the reply to travel back, so
	// that a script Redis runs just in time is still answered in time.
	dl = dl.Add(-time.Until(dl) / 10).Add(s.skew)
	var nowArg any = ""
	if !s.server {
		nowArg = micros(now.Add(waited))
	}
	full := make([]any, 0, 2+len(args))
	full = append(full, micros(dl), nowArg)
	if err := ctx.Err(); err != nil {
		// Not sent: nothing to undo.
		return nil, s.fail(op, err)
	}
	v, err := sc.Run(ctx, s.c, keys, append(full, args...)...).Result()
	if redisx.MayHaveRun(err) {
		// Whatever the error, an attempt of go-redis's may have run: a
		// late reply ends as context.DeadlineExceeded once go-redis
		// retries it, and an error reply may answer a resend.
		return nil, sentError{s.fail(op, err)}
	}
	if err != nil {
		return nil, s.fail(op, err)
	}
	return v, nil
}

// sentError is an error of a script that was sent: Redis may have run it
// and only its reply was lost (late past the timeout, or the connection
// dropped, whatever go-redis's last retry reported), so what it wrote may
// stand.
type sentError struct{ error }

func (e sentError) Unwrap() error { return e.error }

// maybeRan reports whether err leaves it unknown if the script ran: it
// was sent, and no answer came, or an error reply that may answer a
// retry of it.
func maybeRan(err error) bool {
	var se sentError
	return errors.As(err, &se)
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
	keys := s.lossKeys(make([]string, 1, 4))
	keys[0] = s.rateKey(key)
	if s.rateCap > 0 {
		keys = append(keys, s.rateIndex())
	}
	v, err := s.run(ctx, "rate check", rateScript, keys, now,
		r.Per.Microseconds(), r.N, expirySlack.Milliseconds(), s.boxed.known, s.boxed.rateCap)
	if err != nil {
		return res, err
	}
	out, err := s.ints("rate check", v, 3)
	if err != nil {
		return res, err
	}
	if out[0] == 2 {
		return res, s.rateCapacity()
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
	var receipt string
	if mode != ratelimit.SpendCheck {
		receipt = newToken() // a resend of this write finds it
	}
	keys, args := s.spendArgs(scope, counters, mode, receipt)
	v, err := s.run(ctx, "budget spend", budgetScript, keys, now, args...)
	if err != nil {
		if mode == ratelimit.SpendCommit && maybeRan(err) {
			// Redis may have charged a call the caller now denies: take
			// the charge back by its receipt, or a lost reply would spend
			// the agent's budget on a call that did not run (QWED §9.5).
			s.uncharge(context.WithoutCancel(ctx), keys[:len(counters)+1], counters)
		}
		return res, err
	}
	out, err := s.ints("budget spend", v, len(counters)+2)
	if err != nil {
		return res, err
	}
	if out[0] == -2 {
		return res, s.scopeCapacity()
	}
	res.Failed = int(out[0])
	res.Values = out[2:]
	if lost := int(out[1]); lost >= 0 && lost < len(counters) {
		c := counters[lost]
		return res, &ratelimit.Error{Code: ratelimit.CodeStateLost, Reason: fmt.Sprintf(
			"the budget counter %s of this agent may have been lost with Redis's data (a restart without persistence, or a flush) after its window opened, so what was spent cannot be known; refused until the window ends in %v, or set redisstore Options.AcceptLostCounters",
			c.Name, c.TTL.Round(time.Second))}
	}
	return res, nil
}

// spendArgs are the keys and arguments of budgetScript for one Spend;
// receipt is the token of a write's receipt ("" for a check).
func (s *Store) spendArgs(scope string, counters []ratelimit.Counter, mode ratelimit.SpendMode, receipt string) ([]string, []any) {
	keys := make([]string, len(counters), len(counters)+6)
	args := make([]any, 0, 6+4*len(counters))
	args = append(args, int(mode), s.boxed.known, s.boxed.budCap, scope)
	for i, c := range counters {
		keys[i] = s.budgetKey(scope, c.Name)
		ttl := (c.TTL + time.Millisecond - 1).Milliseconds()
		args = append(args, c.Add, c.Max, ttl, c.Age.Microseconds())
	}
	keys = append(keys, s.receiptKey(scope, receipt))
	keys = s.lossKeys(keys)
	args = append(args, s.receiptTTL().Milliseconds(), s.boxed.prefix)
	if s.budCap > 0 {
		keys = append(keys, s.scopeIndex(), s.scopeUsed(), s.scopeRecord(scope))
	}
	return keys, args
}

// receiptTTL is how long a charge's receipt lives at least: past the
// charge's own timeout, a wait for a slot and the uncharge's timeout,
// with a second to spare; the scripts keep it until the write's deadline
// has passed in Redis's clock too (life in the prelude). Receipts are one
// small key per write (charge, forced charge, refund) for this long.
func (s *Store) receiptTTL() time.Duration { return 2*s.timeout + s.queue + time.Second }

// uncharge takes back a charge whose reply was lost, if it landed. keys
// are the charge's counter keys and its receipt. A failure leaves the
// charge standing: the agent is over-charged, never under.
func (s *Store) uncharge(ctx context.Context, keys []string, counters []ratelimit.Counter) {
	args := make([]any, len(counters), len(counters)+1)
	for i, c := range counters {
		args[i] = c.Add
	}
	args = append(args, s.receiptTTL().Milliseconds())
	_, _ = s.undo(ctx, "budget uncharge", unchargeScript, keys, args...)
}
