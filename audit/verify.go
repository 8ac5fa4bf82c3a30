package audit

import (
	"bufio"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// DefaultMaxLineBytes bounds one line (one event) when no limit is given.
const DefaultMaxLineBytes = 1 << 20

// Anchor is a point in a chain: the seq and event_hash of an event.
type Anchor struct {
	Seq  uint64
	Hash string // "sha256:<hex>"
}

// VerifyOptions configures [Verify] and [VerifyFiles]. The zero value (or a
// nil pointer) verifies a whole chain from its genesis without checkpoints.
type VerifyOptions struct {
	// MaxLineBytes bounds a line, newline excluded; a longer line is a
	// KindLineTooLong error. 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// Anchor, when set, says the log continues a chain: its first event must
	// have seq Anchor.Seq+1 and link to Anchor.Hash.
	Anchor *Anchor
	// PublicKey verifies the checkpoints; required with Checkpoints.
	PublicKey ed25519.PublicKey
	// Checkpoints is the checkpoint stream (one JSON object per line, see
	// FORMAT.md), read alongside the log in bounded memory.
	Checkpoints io.Reader
	// CheckpointsName names the checkpoint stream in errors ("checkpoints"
	// when empty). Errors of the checkpoint kinds give its name as File and
	// a line of it as Line.
	CheckpointsName string
	// Log, when set, is the log name every checkpoint must carry
	// (Options.LogName, format v3): a checkpoint naming another log, or a
	// stream in which no checkpoint naming Log covers an event (those
	// before Anchor cover none), is a KindWrongLog error. Whether or not
	// Log is set, the checkpoints of one stream name one log, and none
	// naming no log (v1, v2) may follow one naming it (KindWrongLog);
	// those written before the server was given its name may precede the
	// named ones. Empty accepts any name, and v1 and v2 checkpoints verify
	// as before; Summary.Log reports the name the matched checkpoints
	// carry, for the caller to compare.
	Log string
	// Each, when set, is called with every event once its hash and link
	// are verified, in log order: a caller can list events, or find those
	// of one trace, in the same bounded-memory pass.
	Each func(Verified)
}

// Verified is one event that passed verification, as [VerifyOptions.Each]
// sees it.
type Verified struct {
	File     string // as given to VerifyFiles; "" for Verify
	Line     int    // 1-based, in File
	Seq      uint64
	Hash     string // event_hash
	Decision string // "" for events without one
	Event    string // the event member ("DLP_TRIGGERED", EventRecovered, ...), "" when absent
	// TraceID and SpanID are the event's W3C trace context members as
	// written (FORMAT.md), "" when absent. They are covered by the event's
	// hash like every other member.
	TraceID, SpanID string
}

// MaxDecisionValues bounds the distinct decision values [Summary] counts
// (the guard writes about ten); OtherDecisions counts the events of the
// rest.
const (
	MaxDecisionValues = 256
	OtherDecisions    = "(other)"
)

// Summary describes a verified log.
type Summary struct {
	Events   int    // events verified
	Bytes    int64  // bytes read from the log
	FirstSeq uint64 // seq of the first event, 0 when there is none
	LastSeq  uint64
	LastHash string // event_hash of the last event, "" when there is none
	// Decisions counts events per decision value; events without one are
	// not counted. The first MaxDecisionValues distinct values are kept,
	// events with any other value are counted under OtherDecisions, so
	// that a log of any content is summed up in bounded memory.
	Decisions map[string]int
	// Checkpoints is the number of signed checkpoints matched against the
	// log; LastCheckpointSeq the highest seq they cover.
	Checkpoints       int
	LastCheckpointSeq uint64
	// Log is the log name the matched checkpoints carry (format v3), ""
	// when they name none.
	Log string
	// Traced is the number of events that carry a trace_id.
	Traced int
	// Repairs is the number of events a Writer logged about the log itself
	// ([EventRecovered], [EventChainStarted]): a torn tail cut, events found
	// beyond the last checkpoint, a new chain after a broken one.
	Repairs int
}

// Verify reads a log to its end and checks the chain: every event's hash,
// every link, seq continuity and the genesis, and with opts.Checkpoints the
// signed checkpoints. It returns the first problem as a *ChainError (which
// matches ErrChainBroken), or an I/O error. Memory is bounded by
// opts.MaxLineBytes whatever the size of the log.
func Verify(r io.Reader, opts *VerifyOptions) (Summary, error) {
	v, err := newVerifier(opts)
	if err != nil {
		return Summary{}, err
	}
	if err := v.feed("", r); err != nil {
		return v.sum, err
	}
	return v.finish()
}

// VerifyFiles verifies files in order as one chain, as a Writer leaves it
// after rotation (see [Files]). Errors name the file and the line in it.
func VerifyFiles(paths []string, opts *VerifyOptions) (Summary, error) {
	v, err := newVerifier(opts)
	if err != nil {
		return Summary{}, err
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return v.sum, fmt.Errorf("audit: %w", err)
		}
		err = v.feed(p, f)
		f.Close()
		if err != nil {
			return v.sum, err
		}
	}
	return v.finish()
}

type verifier struct {
	max    int
	p      *eventParser
	br     *bufio.Reader
	prev   eventInfo // the last accepted event, or the virtual one before the first
	origin bool      // prev is the virtual event before a genesis
	resume bool      // accept the first event's seq and link as they are (tail recovery)
	sum    Summary
	file   string
	line   int
	ck     *checkpointReader
	each   func(Verified)
}

func newVerifier(opts *VerifyOptions) (*verifier, error) {
	var o VerifyOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxLineBytes < 0 {
		return nil, errors.New("audit: negative MaxLineBytes")
	}
	if o.MaxLineBytes == 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	v := &verifier{max: o.MaxLineBytes, p: newEventParser(), sum: Summary{Decisions: map[string]int{}}, each: o.Each}
	switch {
	case o.Anchor != nil:
		v.prev = eventInfo{seq: o.Anchor.Seq, hashSeg: strconv.Quote(o.Anchor.Hash), prevSeg: "?"}
	default:
		v.prev = eventInfo{seq: 0, hashSeg: nullSeg, prevSeg: "?"}
		v.origin = true
	}
	if o.Checkpoints != nil {
		if len(o.PublicKey) != ed25519.PublicKeySize {
			return nil, errors.New("audit: checkpoints need an Ed25519 public key")
		}
		if o.CheckpointsName == "" {
			o.CheckpointsName = "checkpoints"
		}
		if o.Log != "" {
			if err := ValidLogName(o.Log); err != nil {
				return nil, err
			}
		}
		v.ck = newCheckpointReader(o.Checkpoints, o.PublicKey, o.CheckpointsName)
		v.ck.log = o.Log
	}
	return v, nil
}

// readLine returns the next line without its newline. torn reports a last
// line without one; tooLong a line over the limit (then the rest of that
// line is consumed).
func (v *verifier) readLine() (line []byte, torn, tooLong bool, err error) {
	line, err = v.br.ReadSlice('\n')
	v.sum.Bytes += int64(len(line))
	switch {
	case err == nil:
		line = line[:len(line)-1]
		if len(line) > v.max {
			return nil, false, true, nil
		}
		return line, false, false, nil
	case errors.Is(err, bufio.ErrBufferFull):
		for errors.Is(err, bufio.ErrBufferFull) {
			var more []byte
			more, err = v.br.ReadSlice('\n')
			v.sum.Bytes += int64(len(more))
		}
		if err != nil && err != io.EOF {
			return nil, false, false, err
		}
		return nil, false, true, nil
	case err == io.EOF && len(line) > 0:
		if len(line) > v.max {
			return nil, false, true, nil
		}
		return line, true, false, nil
	default:
		return nil, false, false, err
	}
}

func (v *verifier) fail(k Kind, seq uint64, want, got, msg string) *ChainError {
	return &ChainError{Kind: k, File: v.file, Line: v.line, Seq: seq, Want: want, Got: got, Msg: msg}
}

// feed verifies one file (or stream) of the chain.
func (v *verifier) feed(file string, r io.Reader) error {
	v.file, v.line = file, 0
	if v.br == nil {
		v.br = bufio.NewReaderSize(r, v.max+1)
	} else {
		v.br.Reset(r)
	}
	for {
		line, torn, tooLong, err := v.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		v.line++
		switch {
		case tooLong:
			return v.fail(KindLineTooLong, 0, strconv.Itoa(v.max)+" bytes", "more", "")
		case torn:
			return v.fail(KindTornLine, 0, "a newline", "end of file", "")
		}
		c, err := v.p.parse(line)
		if err != nil {
			return v.garbage(err)
		}
		if c.computed != c.hashSeg {
			return v.fail(KindTampered, c.seq, unquote(c.computed), unquote(c.hashSeg), "event_hash does not match the event")
		}
		if err := v.link(c); err != nil {
			return err
		}
		if err := v.accept(c); err != nil {
			return err
		}
	}
}

// garbage decides between KindMalformed and KindTrailingGarbage for a line
// that is not an event: it is trailing garbage when no event follows it.
func (v *verifier) garbage(cause error) error {
	line, msg := v.line, strings.TrimPrefix(cause.Error(), "audit: ")
	for {
		next, _, tooLong, err := v.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		if tooLong {
			continue
		}
		if _, perr := v.p.parse(next); perr == nil {
			e := v.fail(KindMalformed, 0, "", "", msg)
			e.Line = line
			return e
		}
	}
	e := v.fail(KindTrailingGarbage, 0, "", "", msg)
	e.Line = line
	return e
}

// peek parses the next line, for classifying a broken link; ok is false when
// there is no next event. It consumes the line: only call it on the way to
// returning an error.
func (v *verifier) peek() (eventInfo, bool) {
	next, torn, tooLong, err := v.readLine()
	if err != nil || torn || tooLong {
		return eventInfo{}, false
	}
	n, err := v.p.parse(next)
	return n, err == nil
}

// link applies the chain rules documented on the Kind constants to an event
// whose own hash is correct.
func (v *verifier) link(c eventInfo) error {
	p := &v.prev
	want := p.seq + 1
	if (v.resume && v.sum.Events == 0) || (c.seq == want && c.prevSeg == p.hashSeg) {
		return nil
	}
	wantLink, gotLink := unquote(p.hashSeg), unquote(c.prevSeg)
	n, haveNext := v.peek()
	if v.origin && v.sum.Events == 0 {
		if c.seq > 1 && haveNext && n.seq == 1 {
			return v.fail(KindReordered, c.seq, "seq 1", "seq "+strconv.FormatUint(c.seq, 10), "the first events are out of order")
		}
		return v.fail(KindGenesis, c.seq, "seq 1 with previous_event_hash null",
			fmt.Sprintf("seq %d with previous_event_hash %s", c.seq, gotLink), "")
	}
	seqs := func() (string, string) {
		return "seq " + strconv.FormatUint(want, 10), "seq " + strconv.FormatUint(c.seq, 10)
	}
	switch {
	case c.seq == p.seq && c.hashSeg == p.hashSeg:
		w, g := seqs()
		return v.fail(KindDuplicateSeq, c.seq, w, g, "the line repeats the previous event")
	case c.seq > want:
		w, g := seqs()
		if haveNext && n.seq == want {
			return v.fail(KindReordered, c.seq, w, g, "the next line holds the expected event")
		}
		return v.fail(KindDeleted, c.seq, w, g, "events are missing")
	case haveNext && n.seq == want && n.prevSeg == p.hashSeg:
		return v.fail(KindInserted, c.seq, wantLink, gotLink, "the next line continues the chain without this one")
	case c.seq == p.seq && c.prevSeg == p.prevSeg:
		return v.fail(KindInserted, c.seq, wantLink, gotLink, "two different events claim the same seq and predecessor")
	case c.seq == p.seq:
		w, g := seqs()
		return v.fail(KindDuplicateSeq, c.seq, w, g, "")
	case c.genesis():
		return v.fail(KindGenesis, c.seq, wantLink, "null", "a new chain starts inside the log")
	case c.seq == want:
		return v.fail(KindLinkBroken, c.seq, wantLink, gotLink, "previous_event_hash does not match the previous event")
	default:
		w, g := seqs()
		return v.fail(KindReordered, c.seq, w, g, "seq goes backwards")
	}
}

func (v *verifier) accept(c eventInfo) error {
	if v.sum.Events == 0 {
		v.sum.FirstSeq = c.seq
	}
	v.sum.Events++
	v.sum.LastSeq = c.seq
	if d := c.decision; d != "" {
		if _, ok := v.sum.Decisions[d]; !ok && len(v.sum.Decisions) >= MaxDecisionValues {
			d = OtherDecisions
		}
		v.sum.Decisions[d]++
	}
	if c.traceID != "" {
		v.sum.Traced++
	}
	if e := string(c.event); e == EventRecovered || e == EventChainStarted { // no allocation: compared, not kept
		v.sum.Repairs++
	}
	v.prev, v.origin = c, false
	if v.ck != nil {
		if err := v.ck.match(v, c); err != nil {
			return err
		}
	}
	if v.each != nil {
		v.each(Verified{File: v.file, Line: v.line, Seq: c.seq, Hash: c.hashString(), Decision: c.decision, Event: string(c.event), TraceID: c.traceID, SpanID: c.spanID})
	}
	return nil
}

func (v *verifier) finish() (Summary, error) {
	if v.sum.Events > 0 {
		v.sum.LastHash = v.prev.hashString()
	}
	if v.ck != nil {
		if err := v.ck.finish(v); err != nil {
			return v.sum, err
		}
	}
	return v.sum, nil
}
