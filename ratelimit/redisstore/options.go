package redisstore

import "time"

// Options configure a [Store]. nil means defaults; zero fields too.
type Options struct {
	// Prefix starts every key (default "gatehouse:rl:"). Give each
	// deployment sharing a Redis its own. It must not contain '{' or '}'.
	Prefix string
	// Timeout bounds each operation once it holds one of MaxConcurrent
	// slots, on top of the caller's context (default 500ms). A check that
	// takes longer fails closed with [ratelimit.ErrUnavailable]; a script
	// that reaches Redis after the deadline does nothing. A write that
	// fails without an answer (a charge, a reservation, a commit) may
	// have landed, so it is taken back or looked up within one more
	// Timeout: such a denial takes up to twice the Timeout.
	Timeout time.Duration
	// MaxConcurrent is how many operations may use the client at once
	// (default: the client's PoolSize for a *redis.Client, else 10 per
	// CPU). Others wait for a slot, without the wait counting against
	// Timeout, so a healthy burst queues instead of timing out.
	MaxConcurrent int
	// QueueTimeout bounds the wait for a slot (default 2s). Past it the
	// call is refused with a [*ratelimit.CapacityError]: overload, not an
	// outage.
	QueueTimeout time.Duration
	// MaxConversationsPerOwner caps the live conversations of one owner
	// (default 10,000; see [ratelimit.Owner]), so that one agent's flood of
	// conversations exhausts only its own share: past it, new conversations
	// of that owner are refused with a [*ratelimit.CapacityError].
	MaxConversationsPerOwner int
	// MaxRateKeys, MaxBudgetScopes and MaxConversations cap the live
	// buckets, budget agents and conversations this store keeps in Redis
	// (default 100,000 each; see caps.go for what each cap evicts), so that
	// a flood of many distinct identities leaves new ones served instead
	// of filling maxmemory for everyone. Past a cap, what cannot be
	// evicted safely is refused with a [*ratelimit.CapacityError].
	MaxRateKeys, MaxBudgetScopes, MaxConversations int
	// AcceptIdentityFlood turns those caps off: needed for Redis Cluster
	// and Ring, where a script cannot evict keys of other slots. A flood of
	// distinct identities is then bounded by maxmemory only.
	AcceptIdentityFlood bool
	// ServerClock takes "now" from Redis TIME inside each script instead of
	// the caller's clock, so that replicas with skewed clocks agree. The
	// caller's now is then ignored (fake clocks in tests have no effect).
	ServerClock bool
	// AcceptEviction accepts a Redis whose maxmemory-policy may evict keys.
	// By default [New] refuses it: an attacker who fills memory would evict
	// other agents' spent budgets, buckets and committed steps.
	AcceptEviction bool
	// RequireDurable refuses a Redis without AOF (appendonly yes). Without
	// it such a Redis is accepted and Warn is told.
	RequireDurable bool
	// AcceptDataLoss turns off lost-data detection (the marker key): needed
	// for Redis Cluster and Ring, whose keys live on several servers. With
	// it, a Redis that lost its data accepts replays of steps committed
	// before the loss.
	AcceptDataLoss bool
	// AcceptLostCounters lets budgets and buckets lost with Redis's data
	// start over. By default, after the marker shows a loss, an absent
	// budget counter whose window opened before the loss counts as spent to
	// its limit (refused with ratelimit.CodeStateLost until the window
	// ends) and an absent bucket as emptied at the loss. Conversations fail
	// closed either way (AcceptDataLoss turns all of it off).
	AcceptLostCounters bool
	// Warn receives warnings found at construction (persistence off). nil
	// means slog.Default().Warn.
	Warn func(msg string)
	// Recheck is how often the server check of New is repeated while the
	// store is used (default DefaultRecheck): a policy switched to an
	// evicting one later fails every call closed until it is switched back.
	Recheck time.Duration
}

// DefaultPrefix is the key prefix when Options.Prefix is empty.
const DefaultPrefix = "gatehouse:rl:"

// Defaults of [Options].
const (
	DefaultTimeout      = 500 * time.Millisecond
	DefaultQueueTimeout = 2 * time.Second
	DefaultPerOwner     = 10_000
)

// expirySlack keeps keys a while past their logical expiry, so that a caller
// clock a little behind Redis's never sees state vanish early.
const expirySlack = time.Minute
