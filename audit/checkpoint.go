package audit

import (
	"bufio"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// checkpointContext separates checkpoint signatures from any other use of the
// key (FORMAT.md, "Checkpoints"); v2 checkpoints also bind the chain's
// genesis hash.
const (
	checkpointContext   = "gatehouse-audit-checkpoint-v1\n"
	checkpointContextV2 = "gatehouse-audit-checkpoint-v2\n"
	checkpointContextV3 = "gatehouse-audit-checkpoint-v3\n"
)

// MaxLogName bounds Options.LogName and a checkpoint's log member.
const MaxLogName = 256

// maxCheckpointLine bounds a checkpoint line.
const maxCheckpointLine = 4096

// Checkpoint is a signed statement that the chain had reached event Seq with
// hash EventHash at Timestamp. A Verify given the checkpoints and the public
// key detects a log cut short after a checkpoint, and a log rewritten under
// one. A Checkpoint is a plain value.
//
// Genesis is the event_hash of the chain's first event (previous_event_hash
// null), so that a checkpoint of another chain signed with the same key
// cannot be mixed in (format v2). It is empty in v1 checkpoints, which
// still verify, and when a Writer cannot know it (New with an Anchor, or a
// log whose first file was deleted before any v2 checkpoint was written).
//
// Log names the log (the server) the checkpoint belongs to (format v3,
// Options.LogName), so that where two servers sign with one key, one's log
// swapped whole for the other's is refused by a Verify that expects the
// name (VerifyOptions.Log). It is empty in v1 and v2 checkpoints.
type Checkpoint struct {
	Seq       uint64 `json:"seq"`
	EventHash string `json:"event_hash"`
	Genesis   string `json:"genesis_hash,omitempty"`
	Log       string `json:"log,omitempty"`
	Timestamp string `json:"timestamp"`
	Signature string `json:"signature"` // standard base64 (RFC 4648 §4) Ed25519 signature
}

// SignedMessage returns the bytes the signature covers: the context string
// followed by the RFC 8785 form of {"event_hash","seq","timestamp"} (v1),
// or, with Genesis, "gatehouse-audit-checkpoint-v2\n" and the RFC 8785 form
// of {"event_hash","genesis_hash","seq","timestamp"}, or, with Log,
// "gatehouse-audit-checkpoint-v3\n" and the RFC 8785 form of
// {"event_hash","genesis_hash" (when set),"log","seq","timestamp"}.
func (c *Checkpoint) SignedMessage() []byte {
	b := []byte(checkpointContext)
	switch {
	case c.Log != "":
		b = []byte(checkpointContextV3)
	case c.Genesis != "":
		b = []byte(checkpointContextV2)
	}
	b = append(b, `{"event_hash":`...)
	b = appendString(b, []byte(c.EventHash))
	b = c.appendGenesis(b)
	b = c.appendLog(b)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, c.Seq, 10)
	b = append(b, `,"timestamp":`...)
	b = appendString(b, []byte(c.Timestamp))
	return append(b, '}')
}

// Sign sets c.Signature with an Ed25519 signer (an ed25519.PrivateKey, or a
// crypto.Signer holding one, such as a key in an HSM).
func (c *Checkpoint) Sign(s crypto.Signer) error {
	sig, err := s.Sign(nil, c.SignedMessage(), crypto.Hash(0))
	if err != nil {
		return fmt.Errorf("audit: sign checkpoint: %w", err)
	}
	c.Signature = base64.StdEncoding.EncodeToString(sig)
	return nil
}

// VerifySignature reports whether c carries a valid signature by pub.
func (c *Checkpoint) VerifySignature(pub ed25519.PublicKey) bool {
	sig, err := base64.StdEncoding.Strict().DecodeString(c.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize || len(pub) != ed25519.PublicKeySize {
		return false
	}
	return ed25519.Verify(pub, c.SignedMessage(), sig)
}

// AppendLine appends the checkpoint as one canonical JSON line.
func (c *Checkpoint) AppendLine(b []byte) []byte {
	b = append(b, `{"event_hash":`...)
	b = appendString(b, []byte(c.EventHash))
	b = c.appendGenesis(b)
	b = c.appendLog(b)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, c.Seq, 10)
	b = append(b, `,"signature":`...)
	b = appendString(b, []byte(c.Signature))
	b = append(b, `,"timestamp":`...)
	b = appendString(b, []byte(c.Timestamp))
	return append(b, '}', '\n')
}

func (c *Checkpoint) appendGenesis(b []byte) []byte {
	if c.Genesis == "" {
		return b
	}
	return appendString(append(b, `,"genesis_hash":`...), []byte(c.Genesis))
}

func (c *Checkpoint) appendLog(b []byte) []byte {
	if c.Log == "" {
		return b
	}
	return appendString(append(b, `,"log":`...), []byte(c.Log))
}

// ValidLogName reports why name cannot name a log in a checkpoint, or nil:
// it must be 1 to MaxLogName bytes of printable ASCII without a quote or a
// backslash, and without a space at either end, so that it reads the same
// in the JSON line, in an error and on a terminal (no newline, escape,
// look-alike character or invisible space: "mcp-a " is not shown apart
// from "mcp-a").
func ValidLogName(name string) error {
	if name == "" || len(name) > MaxLogName {
		return fmt.Errorf("audit: log name must be 1 to %d bytes, not %d", MaxLogName, len(name))
	}
	if name[0] == ' ' || name[len(name)-1] == ' ' {
		return fmt.Errorf("audit: log name %q starts or ends with a space, which a terminal does not show", name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return fmt.Errorf("audit: log name %q holds byte %#02x: use printable ASCII without quote or backslash", name, c)
		}
	}
	return nil
}

// ParseCheckpoint parses one checkpoint line (without its newline), v1, v2
// (with genesis_hash) or v3 (with log). It checks the shape, not the
// signature.
func ParseCheckpoint(line []byte) (Checkpoint, error) {
	var cp Checkpoint
	var c canon
	if err := c.transform(line); err != nil {
		return cp, err
	}
	if c.out[0] != '{' || len(c.mem) < 4 || len(c.mem) > 6 {
		return cp, errors.New("audit: checkpoint is not an object with exactly seq, event_hash, timestamp, signature and optionally genesis_hash and log")
	}
	seen := 0
	for _, m := range c.mem {
		val := string(c.out[m.Start+m.Value : m.End])
		var ok bool
		switch string(m.Name) {
		case "seq":
			cp.Seq, ok = parseSeq(val)
		case "event_hash":
			cp.EventHash, ok = plainString(val)
		case "genesis_hash":
			cp.Genesis, ok = plainString(val)
			ok = ok && cp.Genesis != ""
			seen++
		case "log":
			cp.Log, ok = plainString(val)
			ok = ok && ValidLogName(cp.Log) == nil
			seen++
		case "timestamp":
			cp.Timestamp, ok = plainString(val)
		case "signature":
			cp.Signature, ok = plainString(val)
		}
		if !ok {
			return cp, fmt.Errorf("audit: checkpoint member %q is missing or has the wrong type", m.Name)
		}
	}
	if len(c.mem) != 4+seen {
		return cp, errors.New("audit: checkpoint is not an object with exactly seq, event_hash, timestamp, signature and optionally genesis_hash and log")
	}
	return cp, nil
}

// plainString unquotes a canonical string segment without escapes.
func plainString(seg string) (string, bool) {
	if len(seg) < 2 || seg[0] != '"' {
		return "", false
	}
	s := seg[1 : len(seg)-1]
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			return "", false
		}
	}
	return s, true
}

// checkpointReader walks the checkpoint stream alongside the log.
type checkpointReader struct {
	br   *bufio.Reader
	pub  ed25519.PublicKey
	name string
	log  string // VerifyOptions.Log
	// named is the log the checkpoints read so far name, "" while they
	// name none; covered: a matched checkpoint (one covering an event of
	// the stream) names it.
	named   string
	covered bool
	line    int
	next    *Checkpoint // the next checkpoint not yet matched
	last    uint64      // seq of the last checkpoint read
	done    bool
	// genesis is the chain's genesis hash: its first event's hash when the
	// stream has it, else the first matched v2 checkpoint's genesis_hash.
	genesis string
}

func newCheckpointReader(r io.Reader, pub ed25519.PublicKey, name string) *checkpointReader {
	return &checkpointReader{br: bufio.NewReaderSize(r, maxCheckpointLine+1), pub: pub, name: name}
}

func (k *checkpointReader) fail(kind Kind, seq uint64, want, got, msg string) *ChainError {
	return &ChainError{Kind: kind, File: k.name, Line: k.line, Seq: seq, Want: want, Got: got, Msg: msg}
}

// advance reads the next checkpoint into k.next; every checkpoint must be
// validly signed and cover a higher seq than the one before.
func (k *checkpointReader) advance() error {
	k.next = nil
	if k.done {
		return nil
	}
	line, err := k.br.ReadSlice('\n')
	switch {
	case err == io.EOF && len(line) == 0:
		k.done = true
		return nil
	case errors.Is(err, bufio.ErrBufferFull):
		k.line++
		return k.fail(KindCheckpointForged, 0, "", "", "checkpoint line too long")
	case err == io.EOF:
		k.line++
		return k.fail(KindCheckpointForged, 0, "", "", "checkpoint line without newline")
	case err != nil:
		return fmt.Errorf("audit: checkpoints: %w", err)
	}
	k.line++
	cp, err := ParseCheckpoint(line[:len(line)-1])
	if err != nil {
		return k.fail(KindCheckpointForged, 0, "", "", err.Error())
	}
	if !cp.VerifySignature(k.pub) {
		return k.fail(KindCheckpointForged, cp.Seq, "", "", "signature does not verify")
	}
	// Checkpoints naming no log (v1, v2) are those written before the
	// server was given its name; none may follow one naming it, and the
	// named ones of one stream name one log (Open refuses to continue a
	// log under another name), whether or not the caller expects one.
	switch {
	case k.log != "" && cp.Log != "" && cp.Log != k.log:
		return k.fail(KindWrongLog, cp.Seq, strconv.Quote(k.log), strconv.Quote(cp.Log), "a signed checkpoint of another log")
	case k.named != "" && cp.Log != k.named:
		got := "no log name"
		if cp.Log != "" {
			got = strconv.Quote(cp.Log)
		}
		return k.fail(KindWrongLog, cp.Seq, strconv.Quote(k.named), got, "a signed checkpoint naming another log, or none, after ones naming a log")
	}
	if cp.Log != "" {
		k.named = cp.Log
	}
	if cp.Seq <= k.last {
		return k.fail(KindCheckpointForged, cp.Seq, "seq > "+strconv.FormatUint(k.last, 10),
			strconv.FormatUint(cp.Seq, 10), "checkpoints out of order")
	}
	k.last = cp.Seq
	k.next = &cp
	return nil
}

// match is called for every accepted event in order. Checkpoints before the
// first event of the stream (an anchored, later file) are skipped.
func (k *checkpointReader) match(v *verifier, e eventInfo) error {
	if e.genesis() {
		k.genesis = e.hashString()
	}
	if k.next == nil && !k.done {
		if err := k.advance(); err != nil {
			return err
		}
	}
	for k.next != nil && k.next.Seq < e.seq {
		if err := k.advance(); err != nil {
			return err
		}
	}
	if k.next == nil || k.next.Seq != e.seq {
		return nil
	}
	if got := e.hashString(); k.next.EventHash != got {
		err := k.fail(KindCheckpointMismatch, e.seq, k.next.EventHash, got, "the log differs from a signed checkpoint")
		err.Msg += fmt.Sprintf(" (log line %d)", v.line)
		return err
	}
	if g := k.next.Genesis; g != "" {
		if k.genesis == "" {
			k.genesis = g
		} else if g != k.genesis {
			err := k.fail(KindCheckpointMismatch, e.seq, k.genesis, g, "a signed checkpoint of another chain (genesis_hash differs)")
			err.Msg += fmt.Sprintf(" (log line %d)", v.line)
			return err
		}
	}
	v.sum.Checkpoints++
	v.sum.LastCheckpointSeq = e.seq
	v.sum.Log = k.next.Log
	k.covered = k.covered || k.next.Log != ""
	return k.advance()
}

// finish reports a validly signed checkpoint beyond the end of the log.
func (k *checkpointReader) finish(v *verifier) error {
	if k.next == nil && !k.done {
		if err := k.advance(); err != nil {
			return err
		}
	}
	switch {
	case k.log != "" && k.named == "":
		return k.fail(KindWrongLog, 0, strconv.Quote(k.log), "no checkpoint naming a log", "no signed checkpoint names the log")
	case k.log != "" && !k.covered:
		// Checkpoints before an Anchor are skipped: one naming the log
		// says nothing of the events after it.
		return k.fail(KindWrongLog, 0, strconv.Quote(k.log), "no checkpoint naming a log covers an event of the stream",
			"no signed checkpoint of the log covers the events verified")
	}
	if k.next != nil {
		return k.fail(KindTruncated, k.next.Seq, "seq "+strconv.FormatUint(k.next.Seq, 10),
			"last seq "+strconv.FormatUint(v.sum.LastSeq, 10), "a signed checkpoint covers events the log does not have")
	}
	return nil
}
