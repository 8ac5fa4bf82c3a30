package mcpredact

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Documents JSON rejects for a string's bytes (red team rtc) were read by
// scanning from their opening bracket to where their brackets close, and
// a document never closed was scanned to the end of the text: a text of
// a few hundred such openings ({"a": "\q, a line each) spent the repair
// budget on its first ones, and a later document in need of the repair
// ({"path": "C:\Users\svc", "privKey": "..."}) was left to the text rules,
// which do not know "privKey", and sent (red team rtd). The repair is now
// a reader under a JSON decoder: the decoder stops at the document's first
// error, so an opening that never closes costs the bytes up to where it
// stops being JSON (the next line, mostly), not the rest of the text. The
// reads are charged in small pieces (a line, at most repairChunk bytes),
// and once the budget is spent, a later document that needs the repair
// and may name a credential is withheld with the text, never sent unread.

// repairChunk is the most the repair reader converts at a time: a decoder
// that stops early has been charged little more than it read.
const repairChunk = 256

// repairReader gives a JSON decoder s (s[0] is { or [) with the bytes of
// its strings escaped as JSON escapes them: an escape JSON does not have
// (\U, \s) is a backslash and the byte after it, and a raw control
// character is its \u escape.
type repairReader struct {
	s      string
	off    int  // the next byte of s to convert
	in     bool // off is inside a string
	fixed  bool // an escape was added
	budget *int
	spent  bool
	rep    []byte  // the bytes converted so far
	given  int     // how many of rep the decoder has read
	shifts []shift // where rep's offsets and s's part
}

// shift says that from rep's offset at on, rep is by more bytes longer
// than s.
type shift struct{ at, more int }

func (r *repairReader) Read(p []byte) (int, error) {
	if r.given == len(r.rep) {
		if r.off >= len(r.s) {
			return 0, io.EOF
		}
		if *r.budget <= 0 {
			r.spent = true
			return 0, io.ErrUnexpectedEOF
		}
		from := r.off
		r.convert()
		*r.budget -= r.off - from
	}
	n := copy(p, r.rep[r.given:])
	r.given += n
	return n, nil
}

// convert converts s from off to the end of its line, or repairChunk
// bytes of it (an escape pair is never cut).
func (r *repairReader) convert() {
	s, last := r.s, r.off
	end := min(len(s), r.off+repairChunk)
	if k := strings.IndexByte(s[r.off:end], '\n'); k >= 0 {
		end = r.off + k + 1
	}
	fix := func(i int, with string) {
		r.rep = append(append(r.rep, s[last:i]...), with...)
		r.shifts = append(r.shifts, shift{len(r.rep), r.more() + len(with) - 1})
		last, r.fixed = i+1, true
	}
	i := r.off
	for ; i < end; i++ {
		c := s[i]
		switch {
		case !r.in:
			r.in = c == '"'
		case c == '"':
			r.in = false
		case c == '\\' && i+1 < len(s) && strings.IndexByte(`"\/bfnrt`, s[i+1]) >= 0:
			i++
		case c == '\\' && i+5 < len(s) && s[i+1] == 'u' && isHex4(s[i+2:i+6]):
			i += 5
		case c == '\\':
			fix(i, `\\`)
		case c < 0x20:
			fix(i, `\u00`+string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15]))
		}
	}
	r.rep = append(r.rep, s[last:i]...)
	r.off = i
}

// more is how many bytes longer than s what was converted is.
func (r *repairReader) more() int {
	if len(r.shifts) == 0 {
		return 0
	}
	return r.shifts[len(r.shifts)-1].more
}

// inS is the offset in s of the converted offset at, which is outside a
// string (the end of a document).
func (r *repairReader) inS(at int) int {
	more := 0
	for _, sh := range r.shifts {
		if sh.at > at {
			break
		}
		more = sh.more
	}
	return at - more
}

// repairedDoc reads s, a document JSON rejects for a string's bytes, with
// its strings escaped (repairReader), and walks it: up to where it closes
// (n bytes of s), or, cut short at the end of the text, closed where it
// stops (closeTruncated; n is then len(s)). n is 0 when s is no such
// document (it stops being JSON before it closes, nothing needed the
// repair, or the repair budget was spent: then read.repairSpent is set;
// or it is JSON to the end of the text that cannot be read closed, nested
// deeper than the decoder reads: then read.unreadable is set);
// out is the document encoded again when the walk redacted something.
func (w *walker) repairedDoc(s string, read *lineReader) (n int, hit bool, out string) {
	if read.repair <= 0 {
		read.repairSpent = true
		return 0, false, ""
	}
	r := &repairReader{s: s, budget: &read.repair}
	dec := json.NewDecoder(r)
	var raw json.RawMessage
	err := dec.Decode(&raw)
	switch {
	case r.spent:
		read.repairSpent = true
		return 0, false, ""
	case !r.fixed:
		return 0, false, ""
	case err == nil:
		n = r.inS(int(dec.InputOffset()))
		out, hit, decoded := w.walkDoc(string(raw), false)
		if !decoded || n <= 0 || n > len(s) {
			return 0, false, ""
		}
		return n, hit, out
	case errors.Is(err, io.ErrUnexpectedEOF):
		closed, ok := closeTruncated(string(r.rep))
		var out string
		var hit, decoded bool
		if ok {
			out, hit, decoded = w.walkDoc(closed, false)
		}
		if !decoded {
			read.unreadable = true
			return 0, false, ""
		}
		return len(s), hit, out
	}
	// Repaired, the document stops being JSON before it closes: cut short
	// in the middle of the text ({"path": "C:\Users\x", "privKey": "...",
	// "items": [1, 2 and the next line; red team ruc). What the decoder
	// accepted is walked closed, as cutDoc walks a document that needed
	// no repair.
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 1 || se.Offset > int64(len(r.rep)) {
		return 0, false, ""
	}
	k := int(se.Offset) - 1
	if read.repair < 2*k {
		read.repairSpent = true
		return 0, false, ""
	}
	read.repair -= 2 * k
	if !mayNameCredential(string(r.rep[:k])) {
		return 0, false, ""
	}
	out, used, hit, walked := w.truncatedDocN(string(r.rep[:k]))
	if n = r.inS(used); !walked || n <= 0 || n > len(s) {
		return 0, false, ""
	}
	return n, hit, out
}
