package audit

import (
	"errors"
	"fmt"
	"strings"
)

// ErrChainBroken is matched (errors.Is) by every [*ChainError]: the log is
// not an intact chain.
var ErrChainBroken = errors.New("audit: chain broken")

// ErrClosed is returned by a [Writer] after Close, and wrapped by every Write
// after a write or sync error made the writer unusable (the on-disk state of the
// chain is then unknown, so the writer fails closed; Open repairs it).
var ErrClosed = errors.New("audit: writer closed")

// ErrEventTooLong is returned (wrapped) by Write for an event whose line
// would exceed Options.MaxLineBytes; nothing was written, and the Writer
// stays usable: write the event again with less in it (its arguments
// replaced by their size and hash, say).
var ErrEventTooLong = errors.New("audit: event exceeds MaxLineBytes")

// ErrArgs is returned (wrapped) by Write for an event whose Args the log
// cannot hold: not a JSON object in the log's canonical form (a lone
// surrogate, invalid UTF-8, a duplicate member name, nesting deeper than the
// log allows), or arguments Options.Redactor failed on. Nothing was written,
// and the Writer stays usable: a decision must still be recorded, so write
// the event again with its arguments replaced by their size and hash.
var ErrArgs = errors.New("audit: args cannot be logged")

// ErrLocked is returned by [Open] when the log is already open for writing,
// in another process or by another Writer in this one: a log has a single
// writer, since two would fork the chain. Its message names the file.
var ErrLocked = errors.New("audit: log is open by another writer")

// ErrNotRegular is returned by [Open] when its path names a directory, a
// FIFO, a device or a socket: a log is a regular file, which the Writer
// appends to, reads back and rotates. Use [New] to write the events to any
// io.Writer. Its message names the file and what it is.
var ErrNotRegular = errors.New("audit: log is not a regular file")

// Kind says what is wrong with a log. The zero Kind is never used in a
// [ChainError].
type Kind int

// The kinds of problem [Verify] reports, with the rule that picks each. Let P
// be the last accepted event and C the current line.
const (
	_ Kind = iota
	// KindMalformed: a line is not a JSON object (RFC 8785 I-JSON: no duplicate
	// names, valid UTF-8) with an integer seq >= 1, a string event_hash and a
	// previous_event_hash that is a string or null.
	KindMalformed
	// KindTampered: C's event_hash is not the hash of C (a field was changed).
	KindTampered
	// KindLinkBroken: C.seq = P.seq+1 but C.previous_event_hash is not P's
	// event_hash (P was changed and rehashed, or C was replaced).
	KindLinkBroken
	// KindDeleted: C.seq > P.seq+1 and the next line does not hold P.seq+1.
	KindDeleted
	// KindInserted: C.seq = P.seq+1 and C does not link to P, but the next line
	// does; or C.seq = P.seq and C and P claim the same predecessor but differ.
	KindInserted
	// KindReordered: C.seq > P.seq+1 and the next line holds P.seq+1; or
	// C.seq < P.seq.
	KindReordered
	// KindDuplicateSeq: C.seq = P.seq (a repeated line, or a second event with
	// that seq that does not fork from P's predecessor).
	KindDuplicateSeq
	// KindTornLine: the last line has no terminating newline (a write cut
	// short by a crash, or bytes appended after the log).
	KindTornLine
	// KindTrailingGarbage: a line that is not an event, followed by nothing but
	// more such lines up to the end of the log.
	KindTrailingGarbage
	// KindGenesis: the first event is not seq 1 with previous_event_hash null
	// (or, given an anchor, does not continue from it), or a genesis event
	// (previous_event_hash null) appears inside a chain.
	KindGenesis
	// KindLineTooLong: a line is longer than VerifyOptions.MaxLineBytes.
	KindLineTooLong
	// KindTruncated: a valid checkpoint covers a seq beyond the end of the log.
	KindTruncated
	// KindCheckpointForged: a checkpoint is malformed, out of order, or its
	// signature does not verify with the public key.
	KindCheckpointForged
	// KindCheckpointMismatch: a validly signed checkpoint names a different
	// event_hash than the log holds at that seq (the log was rewritten).
	KindCheckpointMismatch
	// KindWrongLog: a validly signed checkpoint names another log than
	// VerifyOptions.Log (format v3): a log swapped whole for another
	// server's signed with the same key; or, with VerifyOptions.Log set,
	// no checkpoint naming it covers an event of the stream; or the
	// checkpoints of one stream name two logs, or one names none after
	// one naming a log.
	KindWrongLog
)

var kindNames = [...]string{
	KindMalformed:          "malformed line",
	KindTampered:           "tampered event",
	KindLinkBroken:         "broken link",
	KindDeleted:            "deleted line",
	KindInserted:           "inserted line",
	KindReordered:          "reordered lines",
	KindDuplicateSeq:       "duplicate seq",
	KindTornLine:           "torn line",
	KindTrailingGarbage:    "trailing garbage",
	KindGenesis:            "wrong genesis",
	KindLineTooLong:        "line too long",
	KindTruncated:          "truncated log",
	KindCheckpointForged:   "forged checkpoint",
	KindCheckpointMismatch: "checkpoint mismatch",
	KindWrongLog:           "checkpoint of another log",
}

// String returns a short lowercase name such as "tampered event".
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// ChainError is the first problem found in a log. It matches [ErrChainBroken]
// with errors.Is, and errors.Is(err, &ChainError{Kind: k}) matches any
// ChainError of kind k. For KindTruncated, KindCheckpointForged and
// KindCheckpointMismatch, File and Line point into the checkpoint stream.
// A ChainError is a plain value, safe to read from any goroutine.
type ChainError struct {
	Kind Kind
	File string // the file, when known (VerifyFiles, Open)
	Line int    // 1-based line number in File (or in the stream), 0 if none
	Seq  uint64 // seq of the offending event, 0 when unknown
	Want string // what the chain required here, e.g. a hash or a seq
	Got  string // what the log holds
	Msg  string // detail
}

func (e *ChainError) Error() string {
	var b strings.Builder
	b.WriteString("audit: ")
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Seq > 0 {
		fmt.Fprintf(&b, "seq %d: ", e.Seq)
	}
	b.WriteString(e.Kind.String())
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Want != "" || e.Got != "" {
		fmt.Fprintf(&b, " (want %s, got %s)", orNone(e.Want), orNone(e.Got))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// Unwrap returns [ErrChainBroken].
func (e *ChainError) Unwrap() error { return ErrChainBroken }

// Is reports whether target is a *ChainError of the same Kind.
func (e *ChainError) Is(target error) bool {
	t, ok := target.(*ChainError)
	return ok && t.Kind == e.Kind
}
