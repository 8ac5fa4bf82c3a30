package audit

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// logState is what recovery found, before anything is changed on disk.
type logState struct {
	anchor    Anchor
	torn      int64 // bytes to cut from the active file
	ckTorn    int64 // bytes to cut from the checkpoint file
	ckLast    uint64
	ckGenesis string // genesis_hash of the last checkpoint, if v2
}

// recoverLog checks the tail of the log at path (and of its checkpoint file
// when the Writer owns one) and, only when everything is intact, cuts torn
// last lines. A *ChainError leaves the files untouched.
func recoverLog(path string, o *Options) (Recovery, logState, error) {
	var st logState
	files, err := Files(path)
	if err != nil {
		return Recovery{}, st, err
	}
	active := len(files) > 0 && files[len(files)-1] == path
	rotated := files
	if active {
		rotated = files[:len(files)-1]
	}
	// The anchor the active file starts from: the end of the last rotated file.
	base := func() (*Anchor, error) {
		if len(rotated) == 0 {
			return nil, nil
		}
		last := rotated[len(rotated)-1]
		a, torn, err := tailOf(last, o.MaxLineBytes, nil)
		if err == nil && torn > 0 {
			err = &ChainError{Kind: KindTornLine, File: last, Msg: "a rotated file ends with a torn line"}
		}
		return &a, err
	}
	var events bool
	if active {
		a, torn, err := tailOf(path, o.MaxLineBytes, base)
		if err != nil {
			return Recovery{}, st, err
		}
		st.anchor, st.torn, events = a, torn, a.Seq > 0
	}
	if !events {
		a, err := base()
		if err != nil {
			return Recovery{}, st, err
		}
		if a != nil {
			st.anchor = *a
		}
	}
	if o.Signer != nil && o.Checkpoints == nil {
		pub := o.Signer.Public().(ed25519.PublicKey)
		if err := checkCheckpointTail(path, st.anchor, pub, o.LogName, &st); err != nil {
			return Recovery{}, st, err
		}
	}
	// Everything verified: repair.
	if st.torn > 0 {
		if err := truncateTail(path, st.torn); err != nil {
			return Recovery{}, st, err
		}
	}
	if st.ckTorn > 0 {
		if err := truncateTail(path+".checkpoints", st.ckTorn); err != nil {
			return Recovery{}, st, err
		}
	}
	rec := Recovery{LastSeq: st.anchor.Seq, TornBytes: st.torn, TornCheckpointBytes: st.ckTorn}
	if o.Signer != nil && o.Checkpoints == nil && st.anchor.Seq > st.ckLast {
		// Events no checkpoint signed: a crash before the next one, or lines
		// someone else appended (the chain has no key). Say so before this
		// Writer's checkpoints sign over them.
		rec.Unattested, rec.LastCheckpointSeq = st.anchor.Seq-st.ckLast, st.ckLast
	}
	return rec, st, nil
}

// readTail returns up to n bytes from the end of file name and whether they
// are the whole file.
func readTail(name string, n int64) ([]byte, bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("audit: %w", err)
	}
	size := info.Size()
	n = min(n, size)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return nil, false, fmt.Errorf("audit: %w", err)
	}
	return buf, n == size, nil
}

// tailOf verifies the complete lines at the end of a log file and returns
// its last event and the length of a torn last line. When the window holds
// the whole file and base is not nil, its first event must continue from
// base() (nil: be a genesis); otherwise the chain is checked from the first
// whole line in the window.
func tailOf(name string, max int, base func() (*Anchor, error)) (Anchor, int64, error) {
	buf, whole, err := readTail(name, 2*int64(max+1)+1)
	if err != nil {
		return Anchor{}, 0, err
	}
	nl := bytes.LastIndexByte(buf, '\n')
	torn := int64(len(buf) - (nl + 1))
	if torn > int64(max) {
		return Anchor{}, 0, &ChainError{Kind: KindLineTooLong, File: name,
			Msg: fmt.Sprintf("the file ends with %d bytes without a newline", torn)}
	}
	body := buf[:nl+1]
	vo := &VerifyOptions{MaxLineBytes: max}
	if whole && base != nil {
		a, err := base()
		if err != nil {
			return Anchor{}, 0, err
		}
		vo.Anchor = a
	}
	v, err := newVerifier(vo)
	if err != nil {
		return Anchor{}, 0, err
	}
	if !whole {
		body = body[bytes.IndexByte(body, '\n')+1:] // the first line may be cut
	}
	if !whole || base == nil {
		v.resume, v.origin = true, false
	}
	if err := v.feed(name, bytes.NewReader(body)); err != nil {
		var ce *ChainError
		if errors.As(err, &ce) && !whole {
			ce.Line = 0
			ce.Msg += " (found in the tail of the file; Verify gives the line)"
		}
		return Anchor{}, 0, err
	}
	if v.sum.Events == 0 {
		return Anchor{}, torn, nil
	}
	return Anchor{Seq: v.prev.seq, Hash: v.prev.hashString()}, torn, nil
}

// checkCheckpointTail checks the last checkpoint against the log's last
// event: a checkpoint beyond it means the log lost events it had signed for;
// one naming another log than logName (or a log, when logName is empty),
// that this Writer would continue another server's log, or stop naming it.
func checkCheckpointTail(path string, a Anchor, pub ed25519.PublicKey, logName string, st *logState) error {
	name := path + ".checkpoints"
	buf, _, err := readTail(name, 2*(maxCheckpointLine+1))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	nl := bytes.LastIndexByte(buf, '\n')
	st.ckTorn = int64(len(buf) - (nl + 1))
	if st.ckTorn > maxCheckpointLine {
		return &ChainError{Kind: KindCheckpointForged, File: name, Msg: "the file ends with a line too long for a checkpoint"}
	}
	if nl < 0 {
		return nil
	}
	line := buf[bytes.LastIndexByte(buf[:nl], '\n')+1 : nl]
	cp, err := ParseCheckpoint(line)
	if err != nil {
		return &ChainError{Kind: KindCheckpointForged, File: name, Msg: err.Error()}
	}
	if !cp.VerifySignature(pub) {
		return &ChainError{Kind: KindCheckpointForged, File: name, Seq: cp.Seq, Msg: "signature does not verify"}
	}
	switch {
	case cp.Log != "" && cp.Log != logName:
		return &ChainError{Kind: KindWrongLog, File: name, Seq: cp.Seq, Want: strconv.Quote(logName), Got: strconv.Quote(cp.Log),
			Msg: "the log's checkpoints name another log: set Options.LogName to the name of the server that wrote it"}
	case cp.Seq > a.Seq:
		return &ChainError{Kind: KindTruncated, File: path, Seq: cp.Seq, Want: fmt.Sprintf("seq %d", cp.Seq),
			Got: fmt.Sprintf("last seq %d", a.Seq), Msg: "a signed checkpoint covers events the log does not have"}
	case cp.Seq == a.Seq && cp.EventHash != a.Hash:
		return &ChainError{Kind: KindCheckpointMismatch, File: path, Seq: cp.Seq, Want: cp.EventHash, Got: a.Hash,
			Msg: "the log differs from a signed checkpoint"}
	}
	st.ckLast, st.ckGenesis = cp.Seq, cp.Genesis
	return nil
}

func truncateTail(name string, n int64) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("audit: repair: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err == nil {
		err = f.Truncate(info.Size() - n)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("audit: repair: %w", err)
	}
	return nil
}

// openCheckpoints opens the Writer's own checkpoint file for appending.
func (w *Writer) openCheckpoints(ckLast uint64) error {
	name := w.path + ".checkpoints"
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, w.o.FileMode)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	w.ckFile, w.ckOut = f, f
	w.ckEmitted, w.ckDueSeq = ckLast, ckLast
	return nil
}
