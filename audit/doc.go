// Package audit writes and verifies a tamper-evident audit log: one JSON
// object per line, each event hash-chained to the one before it, with
// optional Ed25519-signed checkpoints.
//
// Every authorization decision becomes an [Event] carrying the AIP §6 fields
// (and the §6.4 DLP and ACP §7.4 fields where they apply). A [Writer] adds
// seq (1, 2, 3, ...), a UTC millisecond timestamp from its clock,
// previous_event_hash (null at the genesis) and event_hash: "sha256:" and the
// lowercase hex SHA-256 of the canonical form of the event without its
// event_hash member. The canonical form is RFC 8785 (JCS), except that a
// number a double does not hold exactly (12345678901234567891, 1e-400) is
// kept as written instead of rounded, as is any number longer than 1024
// bytes. FORMAT.md beside this file specifies the format, that number rule
// ("Numbers") and a worked example, so a verifier needs only JCS, the rule
// and SHA-256; plain JCS agrees on every line whose numbers a double holds.
//
// [Verify] and [VerifyFiles] stream a log of any size in bounded memory and
// return the first problem as a [*ChainError] whose [Kind] says what is wrong
// (tampered event, deleted, inserted or reordered lines, duplicate seq, torn
// line, trailing garbage, wrong genesis, truncation after a checkpoint,
// forged checkpoint) and where.
//
// [Open] recovers a log after a crash: it verifies the tail, cuts a torn last
// line, continues the chain, and logs what it repaired ([EventRecovered]).
// Files rotate by size or age; the chain continues across them ([Files]).
//
// # Security
//
// The chain makes any change to a logged event, and any deletion, insertion
// or reordering of lines, detectable by recomputing hashes; every member is
// hashed, metadata and args included, and no number is rounded: two events
// that differ in any value, even beyond double precision, differ in their
// lines and hashes. The chain alone cannot detect a log cut short at its end,
// nor a log rewritten whole by someone who recomputes every hash: signed
// checkpoints (Options.Signer, kept with a key the agent cannot read,
// written to a sink it cannot rewrite) close both gaps, and [Verify] with the
// public key reports KindTruncated and KindCheckpointMismatch. The chain has
// no key: anyone who can write the file can append events that link, and
// only a checkpoint vouches for an event. [Open] with a Signer therefore
// records, before it signs anything, how many events it found beyond the
// last checkpoint ([Recovery].Unattested, in an [EventRecovered] event),
// which a clean Close leaves at zero. Keep the log where the agent cannot
// write (AIP §8.5).
//
// The Writer fails closed: an event it cannot redact, encode or write makes
// Write return an error (the caller should then refuse the call), and after a
// write or fsync error every later Write fails until the log is reopened.
// [Open] never continues a broken chain silently: it fails with the
// *ChainError, or with Options.NewChainOnBroken moves the old files aside and
// starts a new chain whose first event ([EventChainStarted]) says why.
//
// Arguments may carry secrets: set Options.Redactor (a DLP scanner fits
// through [RedactorFunc]) and/or Options.HashArgs to log per-argument hashes
// (keyed with Options.ArgHashKey to resist guessing) instead of values.
//
// Parsing is strict I-JSON as RFC 8785 requires: duplicate member names,
// invalid UTF-8, lone surrogates and nesting deeper than 100 levels are
// rejected, so one line cannot be read two ways; numbers beyond the precision
// or range of a double, which I-JSON advises against, are accepted and kept
// as written (gatehouse's canonical form, internal/jcs, with the rule that
// keeps what was received; member names equal under case folding are
// accepted, so the calls refused for having them are logged too).
//
// A log has one writer: [Open] holds an exclusive advisory lock on
// "<path>.lock" (flock on unix, LockFileEx on Windows) until Close, and a
// second Open, in any process, fails with [ErrLocked] instead of forking the
// chain. A symlink at the log's name is followed (the lock, rotated files and
// checkpoints are the target's), so two names of one log share the lock;
// a log file with a second name (a hard link) is refused. Checkpoints (format v2) carry the chain's genesis hash, so a
// checkpoint of another chain signed with the same key is refused. With
// [Options].LogName, checkpoints (format v3) also name the log (the
// server) they belong to, under the signature, and a Verify given
// [VerifyOptions].Log refuses a log swapped whole (events and checkpoints)
// for another server's signed with the same key ([KindWrongLog]); without
// them, such a swapped log verifies (v2 checkpoints name no log), so give
// each server its own key or its own name (red team rtt). The lock
// is advisory and local: on a network file system (NFS), flock may not
// exclude a writer on another host, so keep each log on a local disk or
// give each host its own log.
//
// # Concurrency
//
// A [Writer] is safe for concurrent use; events are ordered by the Writer's
// lock and each is written with one write call. Redaction and encoding run
// outside the lock. With [DurabilityGroup], concurrent Writes share fsyncs.
// Nothing runs in the background: checkpoints due by count or time are
// written by the Write that makes them due, and by Close. [Verify] and the
// other functions are safe to call concurrently on different inputs.
//
// # Usage
//
//	w, err := audit.Open("/var/log/gatehouse/audit.jsonl", &audit.Options{
//		Durability:      audit.DurabilityGroup,
//		MaxFileBytes:    64 << 20,
//		Signer:          key, // ed25519.PrivateKey
//		LogName:         "billing-mcp", // checkpoints name their log: Verify with VerifyOptions.Log
//		CheckpointEvery: 1000,
//		HashArgs:        true,
//	})
//	if err != nil { ... } // a *ChainError if the existing log is broken
//	defer w.Close()
//	err = w.Write(ctx, &audit.Event{
//		Direction: audit.DirectionUpstream, Method: "tools/call", Tool: "delete_file",
//		Args: rawArgs, Decision: "BLOCK", PolicyMode: "enforce", Violation: true,
//	})
//
//	files, _ := audit.Files("/var/log/gatehouse/audit.jsonl")
//	sum, err := audit.VerifyFiles(files, &audit.VerifyOptions{PublicKey: pub, Checkpoints: ck})
package audit

//go:generate go run ./internal/gencorpus -out testdata/corpus
