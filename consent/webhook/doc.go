// Package webhook is the consent channel that asks over HTTPS (ACP §2.4):
// [Channel.Ask] POSTs the consent request, signed with HMAC-SHA256 in the
// [SignatureHeader], and takes a signed [Reply] at once or later on
// [Channel.ServeHTTP]. [Sign] and [Verify] are the signature scheme, for
// receivers written in Go.
//
// # Security
//
// A reply counts only with a valid signature no older than the tolerance,
// the request's id and nonce (compared in constant time), and once: a
// replay finds nothing pending (404). The signed string includes the
// direction ([Kind]), so a request body never verifies as a decision.
// Pending requests are capped (Options.MaxPending); beyond, Ask denies.
//
// # Concurrency
//
// A Channel is safe for concurrent use and starts no goroutines.
package webhook
