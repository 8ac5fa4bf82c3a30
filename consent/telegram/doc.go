// Package telegram is the consent channel that asks in a Telegram chat
// (ACP §2.4): [Channel.Ask] sends consent.Summary of the request with
// Approve and Deny buttons, and takes the first press of an allowed
// approver on that very message, by getUpdates polling or on
// [Channel.ServeHTTP] in webhook mode.
//
// # Security
//
// Presses from other chats, other users (Options.Approvers) or on other
// messages are ignored; each request takes one decision. In webhook mode
// updates count only with the secret token header (constant-time). The
// bot token never appears in errors.
//
// # Concurrency
//
// A Channel is safe for concurrent use and starts no goroutines;
// concurrent Asks share one getUpdates poll.
package telegram
