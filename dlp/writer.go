package dlp

import (
	"io"
)

// Writer redacts a byte stream on its way to an underlying io.Writer: stderr
// of a tool, a large output. It holds back up to Options.ChunkSize bytes and
// scans them as [Scanner.Redact] scans a long input, so its output for a
// stream equals Redact's output for the same bytes however the stream is
// split into Write calls, a secret of up to Options.Overlap bytes is caught
// across Write boundaries, and memory stays bounded: a few times ChunkSize
// (the buffer, the copy being scanned and one chunk's redacted output).
//
// Output is delayed until ChunkSize bytes are buffered or Flush or Close is
// called. A Writer is not safe for concurrent use.
type Writer struct {
	s      *Scanner
	dst    io.Writer
	buf    []byte
	out    []byte
	base   int // stream offset of buf[0]
	agg    aggregator
	err    error
	closed bool
}

var _ io.WriteCloser = (*Writer)(nil)

// NewWriter returns a Writer that writes the redacted stream to dst.
// Closing the Writer does not close dst.
func (s *Scanner) NewWriter(dst io.Writer) *Writer {
	return &Writer{s: s, dst: dst, agg: aggregator{s: s}}
}

// Write buffers p and writes out whatever is settled. It returns len(p)
// unless the Writer is closed or the underlying writer failed; that error is
// sticky.
func (w *Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	size := w.s.opt.ChunkSize
	n := 0
	for len(p) > 0 {
		if len(w.buf) == size {
			if err := w.round(false); err != nil {
				return n, err
			}
		}
		take := min(len(p), size-len(w.buf))
		w.buf = append(w.buf, p[:take]...)
		p = p[take:]
		n += take
	}
	return n, nil
}

// round scans the buffer, writes out the settled part and keeps the rest.
func (w *Writer) round(final bool) error {
	text := string(w.buf)
	cut, sp := w.s.round(text, final)
	w.agg.add(sp, w.base)
	w.out = appendRedacted(w.out[:0], w.s, text[:cut], sp)
	w.buf = append(w.buf[:0], text[cut:]...)
	w.base += cut
	if _, err := w.dst.Write(w.out); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Flush scans and writes out everything buffered. A secret that straddles a
// Flush is not guaranteed to be caught: flush at natural boundaries (the end
// of a line or message), not in the middle of a token.
func (w *Writer) Flush() error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if len(w.buf) == 0 {
		return nil
	}
	return w.round(true)
}

// Close flushes the Writer and marks it closed. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	err := w.Flush()
	w.closed = true
	return err
}

// Findings returns one [Finding] per rule that fired so far, in pattern
// order, with ranges as offsets in the stream.
func (w *Writer) Findings() []Finding { return w.agg.list() }
