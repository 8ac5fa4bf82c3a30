package audit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/internal/fsutil"
)

// Open opens (or creates) the log at path for appending, recovering it first
// (see [Recovery]): a torn last line is truncated, the tail of the chain is
// verified and continued. A broken chain makes Open fail with a *ChainError,
// unless Options.NewChainOnBroken is set. Open reads the tail of the file,
// not all of it: use [VerifyFiles] to check a whole log.
//
// A log has one writer: Open takes an exclusive advisory lock on
// "<path>.lock" (flock on unix, LockFileEx on Windows) before recovery and
// holds it until [Writer.Close]. A second Open of the same log, in another
// process or in this one, fails with [ErrLocked] instead of forking the
// chain (two MCP clients starting the same stdio server with the same log).
// On platforms without advisory locks Open fails.
//
// When path is a symlink (to a log that may not exist yet), Open writes the
// log at its target: the lock, rotated files and checkpoint file are named
// after the target, so that a log opened through two names still has one
// writer. A log file with more than one name (a hard link) is refused.
func Open(path string, opts *Options) (w *Writer, err error) {
	o, err := opts.validate()
	if err != nil {
		return nil, err
	}
	if o.Anchor != nil {
		return nil, errors.New("audit: Anchor is for New; Open continues the chain in the file")
	}
	if path, err = resolveLink(path); err != nil {
		return nil, err
	}
	if err := regularLog(path); err != nil {
		return nil, err
	}
	lock, err := lockLog(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if w == nil {
			lock.Close()
		}
	}()
	if err := oneName(path); err != nil {
		return nil, err
	}
	return openLocked(path, o, lock)
}

// chainGenesis returns the event_hash of the log's first event when the
// oldest file still starts with it, and otherwise the genesis_hash of the
// last checkpoint ("" when neither is known). A checkpoint of another chain
// is a *ChainError.
func chainGenesis(path string, o *Options, ckGenesis string) (string, error) {
	files, err := Files(path)
	if err != nil || len(files) == 0 {
		return ckGenesis, err
	}
	f, err := os.Open(files[0])
	if err != nil {
		return "", fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, o.MaxLineBytes+1).ReadSlice('\n')
	if err != nil {
		return ckGenesis, nil // empty or torn first file: no genesis line
	}
	info, err := newEventParser().parse(line[:len(line)-1])
	if err != nil || !info.genesis() {
		return ckGenesis, nil
	}
	g := unquote(info.computed)
	if ckGenesis != "" && ckGenesis != g {
		return "", &ChainError{Kind: KindCheckpointMismatch, File: path + ".checkpoints", Want: g, Got: ckGenesis,
			Msg: "the last checkpoint is of another chain (genesis_hash differs)"}
	}
	return g, nil
}

// lockLog takes the single-writer lock of the log at path.
func lockLog(path string) (*fsutil.Lock, error) {
	l, err := fsutil.TryLock(path + ".lock")
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w: %s is being written by another process or Writer (lock file %s.lock); "+
			"a log has one writer: stop the other one, or give each process its own log file", ErrLocked, path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return l, nil
}

func openLocked(path string, o Options, lock *fsutil.Lock) (*Writer, error) {
	w := newWriter(o)
	w.path, w.lock = path, lock
	rec, st, err := recoverLog(path, &o)
	var ce *ChainError
	if errors.As(err, &ce) && o.NewChainOnBroken {
		moved, merr := moveAside(path, o.Clock())
		if merr != nil {
			return nil, errors.Join(err, merr)
		}
		rec = Recovery{NewChain: true, Broken: ce, MovedTo: moved}
		st, err = logState{}, nil
	}
	anchor := st.anchor
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, o.FileMode)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	info, err := f.Stat()
	if err == nil {
		err = syncDir(path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	if err := notRegular(path, info.Mode()); err != nil { // what was opened, whatever the path named before
		f.Close()
		return nil, err
	}
	w.file, w.out, w.size = f, f, info.Size()
	w.seq, w.last, w.recovery = anchor.Seq, anchor.Hash, rec
	if w.genesis, err = chainGenesis(path, &o, st.ckGenesis); err != nil {
		f.Close()
		return nil, err
	}
	w.written.Store(anchor.Seq)
	w.synced, w.ckDueSeq = anchor.Seq, anchor.Seq
	if o.Signer != nil {
		w.ckOut = o.Checkpoints
		if w.ckOut == nil {
			if err := w.openCheckpoints(st.ckLast); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	if err := w.logRecovery(); err != nil {
		w.lock = nil // Open releases it
		w.Close()
		return nil, err
	}
	return w, nil
}

// logRecovery records a repair in the chain itself.
func (w *Writer) logRecovery() error {
	r := w.recovery
	var e *Event
	switch {
	case r.NewChain:
		// The broken line's values are the reason's want and got: bound
		// them, so the event fits a line whatever that line held.
		why := *r.Broken
		why.Want, why.Got, why.Msg = clipText(why.Want, 200), clipText(why.Got, 200), clipText(why.Msg, 1000)
		e = &Event{Event: EventChainStarted, Metadata: map[string]any{
			"reason": why.Error(), "moved_to": filepath.Base(r.MovedTo)}}
	case r.TornBytes > 0 || r.TornCheckpointBytes > 0 || r.Unattested > 0:
		e = &Event{Event: EventRecovered, Metadata: map[string]any{
			"torn_bytes": r.TornBytes, "torn_checkpoint_bytes": r.TornCheckpointBytes, "last_seq": r.LastSeq}}
		if r.Unattested > 0 {
			e.Metadata["unattested_events"] = r.Unattested
			e.Metadata["last_checkpoint_seq"] = r.LastCheckpointSeq
		}
	default:
		return nil
	}
	return w.write(e)
}

// clipText is s cut after n bytes (at a rune boundary), with the size of
// the rest.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + fmt.Sprintf("...(%d more bytes)", len(s)-n)
}

// Recovery reports what Open found and repaired.
type Recovery struct {
	// LastSeq is the last intact event found (0 for a new log).
	LastSeq uint64
	// TornBytes were cut from the end of the log: a last line without a
	// newline, which a crash in the middle of a write leaves. Such an event
	// was never acknowledged by Write.
	TornBytes int64
	// TornCheckpointBytes were cut from the end of the checkpoint file.
	TornCheckpointBytes int64
	// Unattested is the number of events (LastSeq-Unattested+1 to LastSeq)
	// that came after the last signed checkpoint in the Writer's own
	// checkpoint file, LastCheckpointSeq (0: none), with Options.Signer:
	// written before a crash, or appended by someone else, which the
	// chain alone cannot tell apart (it has no key). A Writer closed
	// cleanly signs its last event, so this is 0 after a clean Close.
	// Open records it in an EventRecovered event before any checkpoint of
	// its own signs over those events.
	Unattested        uint64
	LastCheckpointSeq uint64
	// NewChain: the existing chain was broken (Broken says how), its files
	// were renamed to MovedTo (a prefix), and a new chain was started.
	NewChain bool
	Broken   *ChainError
	MovedTo  string
}

// Files returns the files of the log at path in chain order: the rotated
// files "<path>.<20 digits>" sorted, then path itself when it exists. Pass
// them to [VerifyFiles]. A symlink at path is followed as [Open] follows it:
// the files are the target's.
func Files(path string) ([]string, error) {
	path, err := resolveLink(path)
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var out []string
	for _, e := range ents {
		if rest, ok := strings.CutPrefix(e.Name(), base+"."); ok && isSeqSuffix(rest) {
			out = append(out, filepath.Join(filepath.Dir(path), e.Name()))
		}
	}
	slices.Sort(out) // fixed-width numbers sort as numbers
	if _, err := os.Stat(path); err == nil {
		out = append(out, path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return out, nil
}

func isSeqSuffix(s string) bool {
	if len(s) != 20 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func rotatedName(path string, lastSeq uint64) string {
	return fmt.Sprintf("%s.%020d", path, lastSeq)
}

// rotateDue is called under w.mu before writing a line of n bytes.
func (w *Writer) rotateDue(n int, now time.Time) bool {
	if w.file == nil || w.size == 0 {
		return false
	}
	return (w.o.MaxFileBytes > 0 && w.size+int64(n) > w.o.MaxFileBytes) ||
		(w.o.MaxFileAge > 0 && now.Sub(w.fileStart) >= w.o.MaxFileAge)
}

// rotate is called under w.mu. The old file is synced before it is renamed,
// so a rotated file is always complete; a crash between the rename and the
// new file leaves no active file, and Open continues from the rotated one.
func (w *Writer) rotate(now time.Time) error {
	w.lockSync()
	defer w.syncMu.Unlock()
	if err := w.file.Sync(); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	if err := w.file.Close(); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	if err := os.Rename(w.path, rotatedName(w.path, w.seq)); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, w.o.FileMode)
	if err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	if err := syncDir(w.path); err != nil {
		f.Close()
		return fmt.Errorf("audit: rotate: %w", err)
	}
	w.file, w.out, w.size, w.fileStart = f, f, 0, now
	w.synced = w.seq
	return nil
}

// moveAside renames every file of the log at path (rotated files, the active
// file, the checkpoint file) to "<path>.broken.<time>..." and returns that
// prefix. The prefix is one no file has yet ("-2", "-3", ... after the time
// when needed): a rename must never replace the evidence of an earlier
// broken log moved at the same millisecond.
func moveAside(path string, now time.Time) (string, error) {
	files, err := Files(path)
	if err != nil {
		return "", err
	}
	base := path + ".broken." + now.UTC().Format("20060102T150405.000Z")
	prefix := base
	for n := 2; ; n++ {
		free, err := prefixFree(prefix, path, files)
		if err != nil {
			return "", err
		}
		if free {
			break
		}
		prefix = base + "-" + strconv.Itoa(n)
	}
	for _, f := range files {
		to := prefix + strings.TrimPrefix(f, path)
		if err := os.Rename(f, to); err != nil {
			return "", fmt.Errorf("audit: %w", err)
		}
	}
	if err := os.Rename(path+".checkpoints", prefix+".checkpoints"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("audit: %w", err)
	}
	return prefix, syncDir(path)
}

// prefixFree reports whether no file of the log moved to prefix exists yet.
func prefixFree(prefix, path string, files []string) (bool, error) {
	for _, name := range append(files, path+".checkpoints") {
		_, err := os.Lstat(prefix + strings.TrimPrefix(name, path))
		if err == nil {
			return false, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("audit: %w", err)
		}
	}
	return true, nil
}

// syncDir makes a create or rename in path's directory durable.
func syncDir(path string) error { return fsutil.SyncDir(path) }
