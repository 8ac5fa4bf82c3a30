// Package webhook is the consent channel that asks over HTTPS (ACP §2.4):
// [Channel.Ask] POSTs the consent request and takes a signed [Reply] at
// once or later on [Channel.ServeHTTP].
//
// Messages in both directions use the Standard Webhooks wire format
// (https://www.standardwebhooks.com), so an approver written in any
// language can use an off-the-shelf verifier, or a few lines of HMAC (see
// README.md beside this file, with Python and Node):
//
//	webhook-id: msg_...                      unique per message, no "."
//	webhook-timestamp: 1614265330            integer Unix seconds
//	webhook-signature: v1,<base64> [v1,...]  HMAC-SHA256 of "<id>.<timestamp>.<body>"
//
// The key is the base64-decoded part of a "whsec_" secret ([ParseSecret],
// [NewSecret]). [Sign] and [Verify] are the scheme, for receivers written
// in Go.
//
// # Security
//
// A message counts only with a signature that matches, compared in
// constant time, under the current secret or one of Options.PreviousSecrets
// (several space-separated signatures are accepted, so secrets rotate
// without downtime; requests are signed with every configured secret), and
// a timestamp within the tolerance (default 5 minutes, either way). The id
// is part of the signed content and may not contain ".", the delimiter.
// A reply must carry the request's id and nonce (compared in constant
// time) and counts once: a replay finds nothing pending (404). Replies are
// decoded strictly, so the signed request body the channel sent, replayed
// back at it, is refused as a decision. Pending requests are capped
// (Options.MaxPending); beyond, Ask denies. Secrets never appear in errors.
//
// # Concurrency
//
// A Channel is safe for concurrent use and starts no goroutines.
package webhook
