package audit

import (
	"context"
	"fmt"
	"time"
)

// checkpointDue is called under w.mu after event w.seq was written.
func (w *Writer) checkpointDue(now time.Time) *Checkpoint {
	if w.o.Signer == nil {
		return nil
	}
	every, interval := w.o.CheckpointEvery, w.o.CheckpointInterval
	due := (every > 0 && w.seq-w.ckDueSeq >= uint64(every)) ||
		(interval > 0 && now.Sub(w.ckDueTime) >= interval)
	if !due {
		return nil
	}
	w.ckDueSeq, w.ckDueTime = w.seq, now
	return &Checkpoint{Seq: w.seq, EventHash: w.last, Genesis: w.genesis, Log: w.o.LogName, Timestamp: now.UTC().Format(TimeFormat)}
}

// Checkpoint writes a signed checkpoint of the last event now, once that
// event is durable. It needs Options.Signer; with no event since the last
// checkpoint it does nothing.
func (w *Writer) Checkpoint(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.o.Signer == nil {
		return fmt.Errorf("audit: checkpoint needs Options.Signer")
	}
	w.mu.Lock()
	if err := w.usable(); err != nil {
		w.mu.Unlock()
		return err
	}
	seq := w.seq
	if seq == 0 || seq == w.ckDueSeq {
		w.mu.Unlock()
		return nil
	}
	now := w.o.Clock()
	cp := &Checkpoint{Seq: seq, EventHash: w.last, Genesis: w.genesis, Log: w.o.LogName, Timestamp: now.UTC().Format(TimeFormat)}
	w.ckDueSeq, w.ckDueTime = seq, now
	w.mu.Unlock()
	if w.o.Durability != DurabilityNone {
		if err := w.groupSync(seq); err != nil {
			return err
		}
	}
	return w.emitCheckpoint(cp)
}

// emitCheckpoint signs and writes cp, unless a later one is already out
// (concurrent Writes may finish out of order). A checkpoint is written only
// after its event is as durable as the Writer promises, so a crash never
// leaves a checkpoint ahead of the log (except with DurabilityNone).
func (w *Writer) emitCheckpoint(cp *Checkpoint) error {
	w.ckMu.Lock()
	defer w.ckMu.Unlock()
	if cp.Seq <= w.ckEmitted {
		return nil
	}
	if err := cp.Sign(w.o.Signer); err != nil {
		return w.failCheckpoint(err)
	}
	if _, err := w.ckOut.Write(cp.AppendLine(nil)); err != nil {
		return w.failCheckpoint(fmt.Errorf("audit: write checkpoint: %w", err))
	}
	if s, ok := w.ckOut.(syncer); ok && w.o.Durability != DurabilityNone {
		if err := s.Sync(); err != nil {
			return w.failCheckpoint(fmt.Errorf("audit: fsync checkpoint: %w", err))
		}
	}
	w.ckEmitted = cp.Seq
	return nil
}

// failCheckpoint makes a checkpoint failure sticky: the checkpoint stream's
// state is unknown, and the Writer fails closed.
func (w *Writer) failCheckpoint(err error) error {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	return err
}
