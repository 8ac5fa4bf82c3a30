// Package redisstore keeps approval challenges and credentials in Redis, so
// that several replicas of a server share them: a challenge issued by one
// replica verifies on another, and is consumed exactly once across all of
// them.
//
// [ChallengeStore] implements [approval.ChallengeStore]; its Consume is one
// Lua script (check and write in one atomic step). Put is two: it first
// reserves a place among the user's pending challenges (a sorted set per
// user handle, capped by Options.MaxPendingPerUser, so one user cannot fill
// Redis for everyone), then writes the challenge, releasing the place if the
// write fails; a consumed challenge releases its place, an expired one
// leaves the set by itself.
// [CredentialStore] implements [approval.CredentialStore]; Add (duplicate
// check across all users, per-user and total caps, write) and UpdateCounter
// (the SEP-2672 §4.8 step 11/14 compare-and-set) are Lua scripts too.
//
// # Security
//
// Fail closed: every Redis error or timeout (Options.Timeout, 500ms by
// default, on top of the caller's context) is returned wrapping
// [approval.ErrUnavailable], which the Gate turns into a denial; nothing is
// ever allowed because Redis did not answer. Every challenge key expires
// (ExpiresAt plus Retention); credentials do not. Challenge IDs reach Redis
// only as key names of bounded length; credential and user IDs are
// base64url-encoded in key names. Anyone who can write to the Redis can
// enroll credentials: protect it like the credential file.
//
// Times come from the caller (the Gate's clock), so replicas need
// synchronized clocks; expiry decisions never use Redis's clock, which only
// reclaims memory.
//
// Redis Cluster: a challenge is one key, a user's pending set another (the
// two scripts of Put touch one key each); all credential keys of a prefix
// share the hash tag {creds} and so one slot.
//
// # Concurrency
//
// Stores are safe for concurrent use and start no goroutines; the go-redis
// client belongs to the caller, who closes it.
//
// # Usage
//
//	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	chals, _ := redisstore.NewChallengeStore(ctx, rdb, nil)
//	creds, _ := redisstore.NewCredentialStore(ctx, rdb, nil)
//	gate, _ := approval.New(cfg, &approval.Options{Challenges: chals, Credentials: creds})
package redisstore
