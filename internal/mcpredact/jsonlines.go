package mcpredact

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Documents inside a text (red team rty). jsonLines read one document a
// line, from the line's first { or [, so a document after another on its
// line ({"id": 1} {"privKey": "..."}), one after a bracket that opens no
// document ("[INFO] {...}", "got {"a": [1} then {...}") and the members
// of a document cut short (a tool's output truncated at so many bytes:
// {"host": "db", "privKey": "...", "items": [1, 2) were never walked, and
// the text rules, which know neither "privKey" nor "pw", sent them on. It
// now also reads from each {" after a document or a failed one on its
// line, and a document that ends before it is closed is walked closed
// (closeTruncated). Its reads are bounded (twice the text and 64 KiB, a
// line at a time, so that a bracket that opens nothing costs its line):
// past the bound, a text whose rest may still hold a document naming a
// credential is withheld whole, as a document too deep is.

// jsonLines walks the JSON documents inside s and returns s with those
// the walk redacted written again (the text around them as it is).
func (w *walker) jsonLines(s string) (string, bool) {
	var b strings.Builder
	done, changed := 0, false
	read := &lineReader{budget: 4*len(s) + 64<<10, repair: 4*len(s) + 64<<10}
	for at, lineStart := 0, true; at < len(s); {
		end := len(s)
		if k := strings.IndexByte(s[at:], '\n'); k >= 0 {
			end = at + k + 1
		}
		start := docStart(s[at:end], lineStart)
		if start < 0 {
			at, lineStart = end, true
			continue
		}
		start += at
		if read.spent {
			if mayNameCredential(s[start:]) {
				return w.nestedDocument(), true
			}
			break
		}
		read.s, read.off = s[start:], 0
		dec := json.NewDecoder(read)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) && !read.spent {
				// Cut short: walked closed; the documents inside it were
				// walked with it.
				out, hit, walked := w.truncatedDoc(s[start:])
				if hit {
					b.WriteString(s[done:start])
					b.WriteString(out)
					done, changed = len(s), true
				}
				if walked {
					break
				}
				// JSON to the end of the text that cannot be read closed
				// (nested deeper than the decoder reads): each opening
				// inside it would be read to the end again (red team rtd).
				if mayNameCredential(s[start:]) {
					return w.nestedDocument(), true
				}
				break
			}
			if inString(err, s[start:]) && !read.spent {
				n, hit, out := w.repairedDoc(s[start:], read)
				if (read.repairSpent || read.unreadable) && mayNameCredential(s[start:]) {
					return w.nestedDocument(), true
				}
				if read.unreadable {
					break
				}
				if n > 0 {
					// The document is also read cut where JSON first
					// rejected it (a value cut short by a line break:
					// {"privKey": "...<LF>next line; red team ruc): the
					// repaired reading runs the string on to the next
					// quote, and its value is no secret's shape.
					cn, cout, chit, _ := w.cutDoc(s[start:], err, read)
					switch {
					case chit && hit && !quoteAfter(s[start:], err):
						// The string JSON rejected never closes: the
						// repaired reading holds no more than the cut one.
						fallthrough
					case chit && !hit:
						b.WriteString(s[done:start])
						b.WriteString(cout)
						done, changed = start+cn, true
						at, lineStart = start+cn, false
						continue
					case chit && hit:
						// Both readings redact, and neither output holds
						// the other's redaction: the document is withheld.
						b.WriteString(s[done:start])
						b.WriteString(w.nestedDocument())
						done, changed = start+n, true
					case hit:
						b.WriteString(s[done:start])
						b.WriteString(out)
						done, changed = start+n, true
					}
					at, lineStart = start+n, false
					continue
				}
			}
			n, out, hit, resume := w.cutDoc(s[start:], err, read)
			if hit {
				b.WriteString(s[done:start])
				b.WriteString(out)
				done, changed = start+n, true
				at, lineStart = start+n, false
				continue
			}
			if read.spent && mayNameCredential(s[start:]) {
				return w.nestedDocument(), true
			}
			at, lineStart = start+max(1, resume), false
			continue
		}
		stop := start + int(dec.InputOffset())
		if out, ok, _ := w.jsonDoc(s[start:stop]); ok {
			b.WriteString(s[done:start])
			b.WriteString(out)
			done, changed = stop, true
		}
		at, lineStart = stop, false
	}
	if !changed {
		return "", false
	}
	b.WriteString(s[done:])
	return b.String(), true
}

// inString reports whether err is JSON's rejection of a string's bytes
// (an escape it does not have, a raw control character) in s, the text
// the decoder read: where the syntax error stops, s is inside a string.
// The error's text is not read: it differs between Go releases (go1.27's
// encoding/json says "invalid escape sequence" and "in string"), and the
// newest-toolchain CI run leaked what go1.26 redacted.
func inString(err error, s string) bool {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 || se.Offset > int64(len(s)) {
		return false
	}
	in, esc := false, false
	for i := 0; i < int(se.Offset); i++ {
		switch c := s[i]; {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		}
	}
	return in
}

// quoteAfter reports whether s holds a double quote after where the
// syntax error err stopped the decoder.
func quoteAfter(s string, err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) && se.Offset >= 0 && se.Offset <= int64(len(s)) && strings.IndexByte(s[se.Offset:], '"') >= 0
}

// isHex4 reports whether s is four hex digits.
func isHex4(s string) bool {
	for i := range 4 {
		if c := s[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// docStart is where a document may start in line: its first { or [ when
// the reading is at the line's start, else the next object with a member
// ({" with white space between or none).
func docStart(line string, lineStart bool) int {
	if lineStart {
		return strings.IndexAny(line, "{[")
	}
	for i := 0; i < len(line); i++ {
		k := strings.IndexByte(line[i:], '{')
		if k < 0 {
			return -1
		}
		i += k
		j := i + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r' || line[j] == '\n') {
			j++
		}
		if j < len(line) && line[j] == '"' {
			return i
		}
	}
	return -1
}

// lineReader reads s a line at a time, at most repairChunk bytes of it (a
// decoder that fails on a line has read no further; red team rtd: a log
// line "[INFO] ... {"path": ..." cost its line twice and the next once,
// and 5,000 of them spent the budget and were withheld) until its budget of bytes is spent; then spent is set
// and the reader ends as a text cut short does.
type lineReader struct {
	s      string
	off    int
	budget int
	spent  bool
	repair int // the budget of repairedDoc's reads
	// repairSpent is set when a document that needed the repair was left
	// unread for want of budget.
	repairSpent bool
	// unreadable is set when a document that needed the repair runs to
	// the end of the text and cannot be read closed.
	unreadable bool
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.off >= len(r.s) {
		return 0, io.EOF
	}
	if r.budget <= 0 {
		r.spent = true
		return 0, io.ErrUnexpectedEOF
	}
	rest := r.s[r.off:min(len(r.s), r.off+repairChunk)]
	if k := strings.IndexByte(rest, '\n'); k >= 0 {
		rest = rest[:k+1]
	}
	n := copy(p, rest[:min(len(rest), r.budget)])
	r.off += n
	r.budget -= n
	return n, nil
}

// cutDoc reads a document cut short inside a text: s starts with a
// document the decoder read as JSON up to its syntax error err, where
// something else follows ("{"privKey": "...", "items": [1, 2" and the
// next line; red team rtd: only a document cut at the text's end was
// read closed, and one cut in the middle went out with its secret). What
// came before the error is walked closed (truncatedDoc) when it may name
// a credential; n is how much of s the redacted out replaces. The bytes
// are charged to read's budget: past it, read.spent is set and nothing
// is walked.
//
// resume is where the next document may start (0: after s's first
// byte). Each { inside what was walked closed was walked with it, or
// names no credential: reading again from each of them cost a line's
// length each, and forty JSON log lines of a KiB, truncated, spent the
// budget and were withheld (red team ruc). A { that ends a string of the
// document ({"msg": "see {"pw": ...}) starts no member of it and is
// where the next reading resumes.
func (w *walker) cutDoc(s string, err error, read *lineReader) (n int, out string, hit bool, resume int) {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 1 || se.Offset > int64(len(s)) {
		return 0, "", false, 0
	}
	// Offset counts the byte the decoder stopped at; without it, the
	// prefix is what JSON accepted.
	for _, k := range []int{int(se.Offset) - 1, int(se.Offset)} {
		if read.budget < 2*k {
			read.spent = true
			return 0, "", false, 0
		}
		read.budget -= 2 * k
		if !mayNameCredential(s[:k]) {
			return 0, "", false, openingInString(s, int(se.Offset)-1)
		}
		if out, used, hit, walked := w.truncatedDocN(s[:k]); walked {
			// What the closed document does not hold stays: the white
			// space before what stopped the decoder, and a word the
			// decoder began to read as a literal (the "n" of a next line
			// "next").
			return used, out, hit, openingInString(s, int(se.Offset)-1)
		}
	}
	return 0, "", false, 0
}

// openingInString is the first { in s[1:k] that ends a string of the
// JSON s starts with (its closing quote, after white space or none,
// follows it), else k: where a document inside s may start that the
// reading of s up to k did not read as one.
func openingInString(s string, k int) int {
	in, esc := false, false
	for i := 0; i < k; i++ {
		switch c := s[i]; {
		case esc:
			esc = false
		case !in:
			in = c == '"'
		case c == '\\':
			esc = true
		case c == '"':
			in = false
		case c == '{' && i > 0:
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
				j++
			}
			if j < len(s) && s[j] == '"' {
				return i
			}
		}
	}
	return k
}

// truncatedDoc walks s, a document cut short, closed (closeTruncated),
// and returns it encoded again when the walk redacted something; walked
// is false when s could not be closed into a document.
func (w *walker) truncatedDoc(s string) (out string, hit, walked bool) {
	out, _, hit, walked = w.truncatedDocN(s)
	return out, hit, walked
}

// truncatedDocN is truncatedDoc that also says how much of s the closed
// document holds (a number or literal cut at its end is left out).
func (w *walker) truncatedDocN(s string) (out string, used int, hit, walked bool) {
	closed, used, ok := closeTruncatedN(s)
	if !ok {
		return "", 0, false, false
	}
	out, hit, walked = w.walkDoc(closed, false)
	return out, used, hit, walked
}

// closeTruncated closes s, a JSON document cut short: a string cut inside
// is closed where it stops (a name cut so is given the value null), and
// otherwise s is cut after its last whole value or opening bracket; then
// the brackets still open are closed. ok is false when s is no such
// document (a bracket closes one of the other kind, or the document ends
// before s does).
func closeTruncated(s string) (string, bool) {
	closed, _, ok := closeTruncatedN(s)
	return closed, ok
}

// closeTruncatedN is closeTruncated that also returns how much of s the
// closed document holds.
func closeTruncatedN(s string) (closed string, used int, ok bool) {
	var open []byte // the closing brackets of the containers still open
	name := false   // in an object, the next string is a member's name
	good, goodDepth := 0, 0
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '{', '[':
			open = append(open, c+2) // '}' and ']' are two after '{' and '['
			name = c == '{'
			i++
			good, goodDepth = i, len(open)
		case '}', ']':
			if len(open) < 2 || open[len(open)-1] != c {
				return "", 0, false
			}
			open = open[:len(open)-1]
			name = false
			i++
			good, goodDepth = i, len(open)
		case '"':
			j := stringEnd(s, i)
			if j < 0 {
				closed := trimPartialEscape(s) + `"`
				if name && len(open) > 0 && open[len(open)-1] == '}' {
					closed += ":null"
				}
				return closeAll(closed, open), len(s), true
			}
			if !(name && len(open) > 0 && open[len(open)-1] == '}') {
				good, goodDepth = j, len(open)
			}
			name = false
			i = j
		case ',':
			name = len(open) > 0 && open[len(open)-1] == '}'
			i++
		case ':', ' ', '\t', '\r', '\n':
			i++
		default: // a number or a literal: whole when something follows it
			j := i
			for j < len(s) && !strings.ContainsRune(",]}: \t\r\n", rune(s[j])) {
				j++
			}
			if j == len(s) {
				return closeAll(s[:good], open[:goodDepth]), good, true
			}
			i = j
			good, goodDepth = i, len(open)
		}
	}
	return closeAll(s[:good], open[:goodDepth]), good, good > 0
}

// stringEnd is the index after the closing quote of the JSON string that
// starts at s[i], or -1 when s ends inside it.
func stringEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// trimPartialEscape drops an escape cut short at the end of s (a lone
// backslash, \u and fewer than four hex digits).
func trimPartialEscape(s string) string {
	from := max(0, len(s)-6)
	k := strings.LastIndexByte(s[from:], '\\')
	if k < 0 {
		return s
	}
	k += from
	n := 0 // backslashes before it: an odd number escapes it
	for k-n-1 >= 0 && s[k-n-1] == '\\' {
		n++
	}
	if tail := s[k+1:]; n%2 == 0 && (tail == "" || tail[0] == 'u' && len(tail) < 5) {
		return s[:k]
	}
	return s
}

// closeAll appends to s the closing brackets of open, innermost first.
func closeAll(s string, open []byte) string {
	b := []byte(s)
	for i := len(open) - 1; i >= 0; i-- {
		b = append(b, open[i])
	}
	return string(b)
}
