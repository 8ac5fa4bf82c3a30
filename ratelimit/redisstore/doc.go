// Package redisstore is a [ratelimit.Store] in Redis, so that rate limits,
// budgets and conversation steps hold across replicas (DESIGN §6).
//
// Every operation is one Lua script run with EVALSHA: one round trip, atomic
// in Redis. Rates use GCRA (one key per bucket, holding the theoretical
// arrival time), budgets are integer counters with an expiry at the end of
// their window, and step reservations are keys written only when absent or
// expired (SET NX semantics) and removed on commit or release.
//
// Keys, under Options.Prefix (default "gatehouse:rl:"), with a Redis
// Cluster hash tag in braces so one script's keys share a slot:
//
//	<prefix>r:{<key>}            token bucket of a rate key
//	<prefix>b:{<agent>}:<name>   budget counter, name like "requests/hour/493827"
//	<prefix>b:{<agent>}!<token>  a budget write's receipt, for a few seconds (lost replies, below)
//	<prefix>bm:{<agent>}         its counter keys, each with its limit, and its level in ix:bu (caps)
//	<prefix>c:{<owner>}<n>:<scope>         conversation: last committed step, fingerprint, repeats
//	<prefix>c:{<owner>}<n>:<scope>:<step>  reservation of one step: "<token>|<expiry µs>"
//	<prefix>o:{<owner>}                    the owner's live conversations (sorted set by expiry)
//	<prefix>marker:2                       when this Redis's data began; no expiry
//	<prefix>lost:2                         when it last lost its data; no expiry
//	<prefix>ix:r, ix:b, ix:c               live buckets, budget agents, conversations (caps)
//	<prefix>ix:bu                          budget agents by the largest share of a limit spent (caps)
//	<prefix>tomb:c                         tombstones of evicted conversations
//
// (<owner> is [ratelimit.Owner] of the scope, <n> the scope's length.) Every
// key but the marker, the loss key, the indexes and the tombstones (bounded
// by the caps) expires: buckets a minute after they are full again,
// counters a minute after their window, reservations a minute after their
// TTL, conversations a minute after ConversationTTL.
//
// # Security
//
// Fail closed (QWED §9.6): when Redis is unreachable, hung, or answers
// something unexpected, every call returns an error wrapping
// [ratelimit.ErrUnavailable] that names the operation and the cause, and the
// caller denies. Each call is bounded by Options.Timeout once it holds one
// of Options.MaxConcurrent slots; the wait for a slot does not count
// against it, and past Options.QueueTimeout the call is refused as capacity
// ([*ratelimit.CapacityError]), as is a write Redis refuses at maxmemory:
// load is never reported as an outage. go-redis clients must be created
// with ContextTimeoutEnabled, and [New] checks it.
//
// Every script gets the caller's deadline and does nothing when Redis runs
// it later (a stalled or paused Redis): no reservation outlives a call that
// was already denied, no budget is charged for it. A script Redis ran in
// time whose reply was lost on the way back is undone by the token it was
// sent with, whatever error go-redis reports (with its retries, a late
// reply ends as context.DeadlineExceeded, like a dead Redis, so such a
// denial takes up to one more Timeout): a reservation is dropped, a
// charge taken back by its receipt, and a commit that landed stands, so
// the call goes on. A write the client sends again after its connection
// reset (go-redis retries by default) finds its token and changes nothing
// more: a charge, refund, forced charge, reservation or commit lands
// once. A receipt, and the mark its undo leaves, lives twice the Timeout
// plus the QueueTimeout and a second, and at least until its write's
// deadline has passed in Redis's clock, so that no copy of the write
// (one go-redis sent again, one held on its way) runs once it is gone,
// even when the replica's clock and Redis's disagree (a Redis clock
// behind the replicas' keeps receipts longer). Time is the caller's,
// moved on by the wait for a slot, or Redis TIME with Options.ServerClock.
// A numeric field that is present but not what the scripts write ("abc",
// "nan", hex, overflow) raises an error naming the key: corrupt state is
// never read as zero.
//
// [New] reads INFO memory and INFO persistence: a maxmemory-policy other
// than noeviction is refused unless Options.AcceptEviction (an attacker
// who fills memory would evict other agents' state), and a Redis without
// AOF is refused under Options.RequireDurable and otherwise accepted with a
// warning; the check is repeated once per Options.Recheck (a minute) on the
// request path, and a policy switched to an evicting one later fails every
// call closed until it is switched back. The marker key has no expiry; a Redis restarted without its data
// or flushed has none, the next script writes a new one, and for one
// ConversationTTL after it, conversations unknown past step 1 fail closed
// with ratelimit.CodeStateLost (steps committed before the loss cannot be
// told from new ones). Budgets and buckets do not start over either: the
// first script that finds the marker missing (or newer than the one its
// store read at New) records the loss in "<prefix>lost:2", and from then
// on a budget counter that is absent although its window opened before the
// loss counts as spent to its limit (the call is refused with
// CodeStateLost, naming the counter and when its window ends), and an
// absent bucket counts as emptied at the loss, regaining tokens from then
// on. After a loss every budgeted agent is therefore refused until the
// windows open at the time of the loss end (the hour, or 00:00 UTC for
// daily limits): what the victim spent cannot be known, and a reset would
// hand it a new budget. Options.AcceptLostCounters lets budgets and buckets
// start over instead; use AOF (and RequireDurable) to lose nothing. A
// marker that New itself creates is taken for a new Redis, not a loss: a
// Redis that lost its data while no store was running is only caught for
// conversations. Redis Cluster and Ring
// spread keys over several servers that one marker cannot cover; they need
// Options.AcceptDataLoss. go-redis retries commands on network errors; a
// retried script can only count twice, which errs on the side of denying.
//
// Live conversations are capped per owner (Options.MaxConversationsPerOwner)
// with a sorted set per owner, so one agent's flood exhausts only its own
// share. A flood of many distinct identities (client names are
// self-declared) meets per-store caps (Options.MaxRateKeys,
// MaxBudgetScopes, MaxConversations; 100,000 each by default), kept in
// sorted sets beside the state, with the memory store's order: lossless
// eviction first (a bucket at least half full is evicted, fullest first,
// giving its owner back at most half its rate; expired budget scopes and
// conversations; budget scopes that spent nothing; conversations with
// nothing committed), then bounded loss: the least-used budget scopes that
// spent at most half of every limit (the owner regains at most what it had
// spent: never a near-limit budget) and the least recently active
// conversations, each leaving a tombstone that refuses it at every step
// with ratelimit.CodeStateLost (its owner loses the conversation, never its
// replay protection). Only when nothing qualifies is a new identity
// refused with a [*ratelimit.CapacityError] naming the cap. So with
// maxmemory sized for the caps (about 30 MB for 2,000 buckets, 2,000 budget
// agents and 8,000 conversations with 200-byte names), a flood leaves new
// agents served and never resets a victim past half its limit; see
// caps.go. The caps need one server: Redis Cluster and Ring need
// Options.AcceptIdentityFlood, and are then bounded by maxmemory only.
//
// # Concurrency
//
// A [Store] is safe for concurrent use and starts no goroutines. The client
// is the caller's: the Store never closes it.
//
// # Usage
//
//	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	store, err := redisstore.New(ctx, client, &redisstore.Options{Timeout: 200 * time.Millisecond})
//	lim, err := ratelimit.NewLimiter(rate, &ratelimit.LimiterOptions{Store: store})
//	guard, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: store})
package redisstore
