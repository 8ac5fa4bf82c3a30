// Package terminal is the consent channel that asks at a terminal (ACP
// §2.4): [Channel] prints consent.Summary of the request on a TTY and reads
// "approve" or "deny".
//
// # Security
//
// The terminal is never the agent's stdio (ACP §9 item 7): Ask fails when
// the device is the same file as os.Stdin or os.Stdout. Input typed before
// the prompt is discarded on Linux, and only an explicit approval
// approves. A vanished terminal fails the request (deny).
//
// # Concurrency
//
// A Channel is safe for concurrent use; one prompt is shown at a time.
package terminal
