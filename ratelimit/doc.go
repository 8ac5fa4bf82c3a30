// Package ratelimit holds the stateful limits in front of tool calls: rates
// per key, budgets per agent (QWED-Agent §6) and the conversation guard
// (QWED-Agent §9.1-9.4), each backed by a [Store] that is in memory by
// default ([MemoryStore]) or in Redis (package ratelimit/redisstore) when
// several replicas must share state.
//
//   - [Rate] is "N/period" as written in policies (AIP §3.5.2): [ParseRate].
//   - [Limiter] allows a burst of N per key and then one event per Per/N: a
//     token bucket (golang.org/x/time/rate in memory, GCRA in Redis).
//   - [Budget] counts requests per hour and day, cost per request and day,
//     tokens per request and day, and high-risk calls per day; a denial is a
//     [*BudgetError] naming the limit, its value, the current value and the
//     reset time, with a QWED-AGENT-BUDGET-00x [Code].
//   - [Guard] requires conversation_id and step_number, caps steps (50),
//     rejects replayed, out-of-order and concurrent steps, and detects
//     repeated actions by a JCS fingerprint ([FingerprintOf]).
//
// Time is always injectable: [Limiter.AllowAt] beside [Limiter.Allow], and a
// Now func in every options struct. Nothing sleeps and nothing runs in the
// background.
//
// # Security
//
// Fail closed: every method that decides returns either a definite answer or
// an error, and an error always means deny. Store failures wrap
// [ErrUnavailable] (QWED §9.6); the Redis store bounds each call by its
// Timeout. Denials carry a stable [Code] and a reason a human can act on
// ("step 3 replays or precedes committed step 5; send step 6 or later");
// reasons never include argument values.
//
// Bounded memory, per identity: keys are caller-chosen and may come from an
// attacker (tool names, conversation ids, self-declared client names). Keys
// are at most [MaxKeyLen] bytes and conversation ids
// [MaxConversationIDLen]. [MemoryStore] holds at most MaxKeys buckets,
// MaxBudgetScopes agents and MaxConversations conversations (100,000 each
// by default), and at most MaxConversationsPerOwner (10,000) live
// conversations of one agent ([Owner]), so one agent's flood exhausts only
// its own share. A flood of many self-declared identities is met first by
// lossless eviction (a full bucket, a budget scope with nothing spent, a
// conversation past its TTL: each equivalent to absent), then by bounded
// loss (the fullest buckets and least-used budget scopes that spent at most
// half of their limit: their owner regains at most what it had spent);
// a near-limit budget or bucket and committed steps are never evicted.
// Only then is new state refused, with a [*CapacityError] naming the cap and
// how to raise it (errors.Is(err, [ErrCapacity])), never [ErrUnavailable]:
// map it to "rate limit exceeded", not to an outage. Budgets keep counters
// only for limits that are set, each ending with its own window, so an
// hourly-only budget keeps nothing past the hour. [InFlight] caps the calls
// in flight per agent and per tool without ever waiting.
//
// The Redis store (package redisstore) has the same per-store caps and
// eviction order, judged in its Lua scripts in the same call.
//
// Shared state in Redis (package redisstore) is checked at construction:
// a maxmemory-policy that may evict keys is refused (an attacker who fills
// memory would evict a victim's spent budget or committed steps), and a
// marker key without expiry detects a Redis that lost its data, after
// which unknown conversations past step 1 fail closed ([CodeStateLost]) for
// one ConversationTTL, budget counters absent although their window opened
// before the loss count as spent (refused with CodeStateLost until the
// window ends) and absent buckets as emptied at the loss ([Counter].Age
// tells the store how old a counter's window is).
//
// Atomicity: every check-and-update is atomic in both stores (a shard lock
// in memory, one Lua script in Redis), so 1,000 concurrent requests for one
// step see exactly one winner and a budget of N is spent exactly N times.
// Budget.Charge re-checks while it spends; Check alone is advisory.
//
// Conversation state expires after GuardOptions.ConversationTTL (24h by
// default) of inactivity; after that its old steps are accepted again, so
// keep the TTL longer than any conversation you allow. Replicas sharing a
// Redis either have synchronized clocks (times come from the caller) or use
// redisstore's ServerClock, which takes every time from Redis TIME.
//
// # Concurrency
//
// [Limiter], [Budget], [Guard], [MemoryStore] and [Reservation] are safe for
// concurrent use. Stores may be shared by any number of limiters, budgets and
// guards; keys of different kinds never collide.
//
// # Usage
//
//	lim, _ := ratelimit.NewLimiter(ratelimit.MustParseRate("10/minute"), nil)
//	res, err := lim.Allow(ctx, ratelimit.Key(agent, tool))
//	if err != nil || !res.Allowed { /* deny: -32002 Rate limit exceeded */ }
//
//	r, err := guard.Begin(ctx, ratelimit.Action{Agent: agent, ConversationID: id, Step: step, Tool: tool, Args: args})
//	if err != nil { /* deny with the error's Code */ }
//	defer r.Release(ctx) // a no-op after Commit
//	if err := budget.Check(ctx, agent, usage); err != nil { /* deny: step released */ }
//	/* policy decision ... APPROVED or PENDING: */
//	if err := budget.Charge(ctx, agent, usage); err != nil { /* deny */ }
//	if err := r.Commit(ctx); err != nil { /* deny */ }
package ratelimit
