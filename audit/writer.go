package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
)

// Writer appends events to a hash chain. It is safe for concurrent use; each
// event is written with one write call, so concurrent events never
// interleave. Create one with [Open] (a file, with recovery and rotation) or
// [New] (any io.Writer).
type Writer struct {
	o    Options
	pool sync.Pool // *encoder

	mu        sync.Mutex // guards everything below up to syncMu
	out       io.Writer
	file      *os.File     // nil for New
	lock      *fsutil.Lock // held for the Writer's lifetime (Open only)
	path      string
	size      int64     // bytes in the active file
	fileStart time.Time // time of the first event written to the active file by this Writer
	seq       uint64
	last      string // event_hash of event seq, "" before the genesis
	genesis   string // event_hash of the chain's first event, "" when unknown
	closed    bool
	err       error // sticky: set when the chain state on disk is unknown
	hb        []byte
	ckDueSeq  uint64    // seq of the last checkpoint scheduled
	ckDueTime time.Time // time of the last checkpoint scheduled
	recovery  Recovery

	syncMu   sync.Mutex    // group commit; taken after mu, never before
	written  atomic.Uint64 // seq of the last event written
	synced   uint64        // seq up to which events are durable (under syncMu)
	syncErr  error         // under syncMu
	inflight atomic.Int64  // Writes between start and append, with DurabilityGroup
	syncing  bool          // a group fsync is running (under syncMu)
	syncCond *sync.Cond    // on syncMu: signals the end of a group fsync

	ckMu      sync.Mutex // guards the checkpoint sink
	ckOut     io.Writer
	ckFile    *os.File // owned checkpoint file, or nil
	ckEmitted uint64
}

// New returns a Writer that appends to w, starting a new chain (or continuing
// after opts.Anchor). With DurabilitySync or DurabilityGroup, w must have a
// Sync() error method (as *os.File has). New does not close w.
func New(w io.Writer, opts *Options) (*Writer, error) {
	o, err := opts.validate()
	if err != nil {
		return nil, err
	}
	if o.MaxFileBytes > 0 || o.MaxFileAge > 0 || o.NewChainOnBroken {
		return nil, errors.New("audit: rotation and NewChainOnBroken need Open")
	}
	if _, ok := w.(syncer); !ok && o.Durability != DurabilityNone {
		return nil, fmt.Errorf("audit: durability %s needs a writer with a Sync method", o.Durability)
	}
	if o.Signer != nil && o.Checkpoints == nil {
		return nil, errors.New("audit: a Signer needs Options.Checkpoints with New")
	}
	wr := newWriter(o)
	wr.out = w
	wr.ckOut = o.Checkpoints
	if a := o.Anchor; a != nil {
		wr.seq, wr.last = a.Seq, a.Hash
		wr.written.Store(a.Seq)
		wr.synced, wr.ckEmitted, wr.ckDueSeq = a.Seq, a.Seq, a.Seq
	}
	return wr, nil
}

func newWriter(o Options) *Writer {
	w := &Writer{o: o}
	w.syncCond = sync.NewCond(&w.syncMu)
	w.pool.New = func() any { return newEncoder(&w.o) }
	return w
}

type syncer interface{ Sync() error }

// Write appends e to the chain. It sets e.Seq, e.Timestamp (from the clock),
// e.PreviousEventHash and e.EventHash, redacts or hashes e.Args as
// configured, and returns once the event is as durable as Options.Durability
// asks. After a write or sync error the Writer refuses every later Write
// (errors.Is(err, ErrClosed)): reopen the log with Open, which repairs it.
func (w *Writer) Write(ctx context.Context, e *Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.write(e)
}

func (w *Writer) write(e *Event) error {
	enc := w.pool.Get().(*encoder)
	defer w.pool.Put(enc)
	group := w.o.Durability == DurabilityGroup
	if group {
		w.inflight.Add(1)
	}
	err := enc.prepare(e, &w.o)
	var seq uint64
	var cp *Checkpoint
	if err == nil {
		seq, cp, err = w.append(enc, e)
	}
	if group {
		w.inflight.Add(-1)
	}
	if err != nil {
		return err
	}
	if w.o.Durability == DurabilityGroup {
		if err := w.groupSync(seq); err != nil {
			return err
		}
	}
	if cp != nil {
		return w.emitCheckpoint(cp)
	}
	return nil
}

// append builds the line under the lock, writes it, and says whether a
// checkpoint is due.
func (w *Writer) append(enc *encoder, e *Event) (uint64, *Checkpoint, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return 0, nil, err
	}
	seq, now := w.seq+1, w.o.Clock()
	line, hash, ts := enc.line2(e, seq, now, w.last)
	if len(line)-1 > w.o.MaxLineBytes {
		return 0, nil, fmt.Errorf("%w: %d bytes, MaxLineBytes %d", ErrEventTooLong, len(line)-1, w.o.MaxLineBytes)
	}
	if w.fileStart.IsZero() { // the age of a file counts from its first event here
		w.fileStart = now
	}
	if w.ckDueTime.IsZero() {
		w.ckDueTime = now
	}
	if w.rotateDue(len(line), now) {
		if err := w.rotate(now); err != nil {
			w.err = err
			return 0, nil, err
		}
	}
	if _, err := w.out.Write(line); err != nil {
		w.err = fmt.Errorf("audit: write: %w", err)
		return 0, nil, w.err
	}
	w.size += int64(len(line))
	if w.last != "" {
		prev := w.last
		e.PreviousEventHash = &prev
	} else {
		e.PreviousEventHash = nil
	}
	e.Seq, e.Timestamp, e.EventHash = seq, ts, hash
	if w.last == "" {
		w.genesis = hash
	}
	w.seq, w.last = seq, hash
	w.written.Store(seq)
	if w.o.Durability == DurabilitySync {
		if err := w.out.(syncer).Sync(); err != nil {
			w.err = fmt.Errorf("audit: fsync: %w", err)
			return 0, nil, w.err
		}
	}
	return seq, w.checkpointDue(now), nil
}

// check returns the error Write would return for e before writing
// anything (ErrArgs, ErrEventTooLong), without writing it: [Tee] asks a
// Writer that comes after another sink, which must not keep an event the
// Writer refuses (the caller writes it again without what was refused).
// The line is measured with a previous hash and a seq at least as long as
// the real ones, so an event it passes is not refused as too long.
func (w *Writer) check(e *Event) error {
	enc := w.pool.Get().(*encoder)
	defer w.pool.Put(enc)
	if err := enc.prepare(e, &w.o); err != nil {
		return err
	}
	w.mu.Lock()
	seq := w.seq + 1
	w.mu.Unlock()
	const anyHash = hashPrefix + "0000000000000000000000000000000000000000000000000000000000000000"
	line, _, _ := enc.line2(e, max(seq*1000, 1<<40), w.o.Clock(), anyHash)
	if len(line)-1 > w.o.MaxLineBytes {
		return fmt.Errorf("%w: about %d bytes, MaxLineBytes %d", ErrEventTooLong, len(line)-1, w.o.MaxLineBytes)
	}
	return nil
}

func (w *Writer) usable() error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return fmt.Errorf("%w: %w", ErrClosed, w.err)
	}
	return nil
}

// line2 builds the final line and returns it with its event_hash and
// timestamp (one string under both).
func (enc *encoder) line2(e *Event, seq uint64, now time.Time, prev string) (line []byte, hash, ts string) {
	b := &enc.b
	enc.ts = appendTime(enc.ts[:0], now)
	b.build(e, seq, enc.ts, prev, enc.args, enc.meta)
	h := enc.h
	h.Reset()
	h.Write(openBrace)
	h.Write(b.pre)
	if len(b.pre) > 0 {
		h.Write(comma)
	}
	h.Write(b.post)
	h.Write(closeBrace)
	var sum [sha256.Size]byte
	l := append(enc.line[:0], '{')
	l = append(l, b.pre...)
	if len(b.pre) > 0 {
		l = append(l, ',')
	}
	l = append(l, `"event_hash":"sha256:`...)
	hs := len(l) - len(hashPrefix)
	l = hex.AppendEncode(l, h.Sum(sum[:0]))
	enc.both = append(append(enc.both[:0], l[hs:]...), enc.ts...)
	both := string(enc.both)
	n := len(l) - hs
	l = append(l, '"', ',')
	l = append(l, b.post...)
	l = append(l, '}', '\n')
	enc.line = l
	return l, both[:n], both[n:]
}

// groupSync returns once an fsync begun after event seq was written is done.
// One Write at a time (the leader) runs the fsync, without holding syncMu, so
// Writes whose events it covers can return as soon as it ends and Writes that
// come during it queue for the next one.
func (w *Writer) groupSync(seq uint64) error {
	w.syncMu.Lock()
	for {
		if w.syncErr != nil {
			w.syncMu.Unlock()
			return fmt.Errorf("%w: %w", ErrClosed, w.syncErr)
		}
		if w.synced >= seq {
			w.syncMu.Unlock()
			return nil
		}
		if !w.syncing {
			break
		}
		w.syncCond.Wait()
	}
	w.syncing = true
	out := w.out.(syncer) // rotate and Close wait while syncing
	w.syncMu.Unlock()

	// Let Writes already under way append their events first, so that this
	// fsync covers them too (bounded: a few scheduler yields).
	for i := 0; i < 64 && w.inflight.Load() > 0; i++ {
		runtime.Gosched()
	}
	target := w.written.Load()
	err := out.Sync()

	w.syncMu.Lock()
	w.syncing = false
	if err == nil {
		w.synced = max(w.synced, target)
	} else {
		err = fmt.Errorf("audit: fsync: %w", err)
		w.syncErr = err
	}
	w.syncCond.Broadcast()
	w.syncMu.Unlock()
	if err != nil {
		w.mu.Lock() // never while holding syncMu: rotate takes mu, then syncMu
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}
	return err
}

// lockSync takes syncMu once no group fsync is running.
func (w *Writer) lockSync() {
	w.syncMu.Lock()
	for w.syncing {
		w.syncCond.Wait()
	}
}

// Last returns the seq and event_hash of the last event written (zero before
// the first one). A later Writer can continue the chain from it with
// Options.Anchor.
func (w *Writer) Last() Anchor {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Anchor{Seq: w.seq, Hash: w.last}
}

// Recovery reports what Open repaired.
func (w *Writer) Recovery() Recovery {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recovery
}

// Close writes a last checkpoint (with a Signer, when events came after the
// last one), syncs and closes the files Open opened. It does not close the
// io.Writer given to New. Close is idempotent; Writes after it fail with
// ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	var errs []error
	if w.file != nil && w.err == nil {
		w.lockSync()
		if err := w.file.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("audit: fsync: %w", err))
		} else {
			w.synced = w.seq // pending group commits are covered
		}
		w.syncMu.Unlock()
	}
	var cp *Checkpoint
	if w.o.Signer != nil && w.err == nil && w.seq > w.ckDueSeq {
		cp = &Checkpoint{Seq: w.seq, EventHash: w.last, Genesis: w.genesis, Log: w.o.LogName, Timestamp: w.o.Clock().UTC().Format(TimeFormat)}
		w.ckDueSeq = w.seq
	}
	w.closed = true
	w.mu.Unlock()

	if cp != nil {
		if err := w.emitCheckpoint(cp); err != nil {
			errs = append(errs, err)
		}
	}
	w.lockSync()
	if w.file != nil {
		if err := w.file.Close(); err != nil {
			errs = append(errs, fmt.Errorf("audit: close: %w", err))
		}
	}
	w.syncMu.Unlock()
	w.ckMu.Lock()
	if w.ckFile != nil {
		if err := w.ckFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("audit: close checkpoints: %w", err))
		}
	}
	w.ckMu.Unlock()
	if err := w.lock.Close(); err != nil {
		errs = append(errs, fmt.Errorf("audit: releasing the lock: %w", err))
	}
	return errors.Join(errs...)
}
