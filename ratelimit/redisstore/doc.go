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
//	<prefix>c:{<owner>}<n>:<scope>         conversation: last committed step, fingerprint, repeats
//	<prefix>c:{<owner>}<n>:<scope>:<step>  reservation of one step: "<token>|<expiry µs>"
//	<prefix>o:{<owner>}                    the owner's live conversations (sorted set by expiry)
//	<prefix>marker:2                       when this Redis's data began; no expiry
//
// (<owner> is [ratelimit.Owner] of the scope, <n> the scope's length.) Every
// key but the marker expires: buckets a minute after they are full again,
// counters a minute after their window, reservations a minute after their
// TTL, conversations a minute after ConversationTTL.
//
// # Security
//
// Fail closed (QWED §9.6): when Redis is unreachable, hung, or answers
// something unexpected, every call returns an error wrapping
// [ratelimit.ErrUnavailable] that names the operation and the cause, and the
// caller denies. Each call is bounded by Options.Timeout; go-redis clients
// must be created with ContextTimeoutEnabled for that, and [New] checks it.
// The store recovers on its own when Redis comes back (go-redis reconnects;
// scripts are reloaded on NOSCRIPT). Redis starts empty after a restart
// without persistence: limits and conversation state start over, so enable
// AOF where that matters. go-redis retries commands on network errors; a
// retried script can only count twice, which errs on the side of denying.
//
// # Concurrency
//
// A [Store] is safe for concurrent use and starts no goroutines. The client
// is the caller's: the Store never closes it.
//
// # Usage
//
//	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	store, err := redisstore.New(client, &redisstore.Options{Timeout: 200 * time.Millisecond})
//	lim, err := ratelimit.NewLimiter(rate, &ratelimit.LimiterOptions{Store: store})
//	guard, err := ratelimit.NewGuard(&ratelimit.GuardOptions{Store: store})
package redisstore
