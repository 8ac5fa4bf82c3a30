package gatehouse

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/dlp"
)

// A tool that streams output as it reads it (a command's stdout, log lines
// as they come) sends it in chunks whose boundaries fall anywhere, so a
// secret can start at the end of one log message or progress message and
// end in the next; scanned one by one, neither holds it whole. The sending
// middleware therefore keeps the end of the last text of each stream
// (one call's log messages of one logger, or a session's progress
// notifications of one token) and scans it joined with the next one: the
// next message loses its share of any secret that crosses the boundary.
// The share already sent cannot be taken back, so such a secret reaches the
// client truncated to its first part, never whole (dlp doc, # Security).
//
// A boundary is read both ways, because the library cannot know which one
// the tool meant. A tool that streams raw chunks (buf[:n]) cuts a token
// mid-word, and its messages must be joined as written, with nothing
// between them. A tool that logs a command's output a line per message
// without the newline (bufio.Scanner's Text) sends "kind: Secret" and
// "data:" as two messages, which joined as written read "kind:
// Secretdata:": no rule that reads a run of lines (a Secret's data block,
// a PEM key's body, a PuTTY key's Private-Lines) matched, and the values
// went out in log and progress messages (red team rtz). So where neither
// side of a boundary is a line break, the stream is also read with one
// there (the newline view), the text loses what either reading finds in
// it, and a secret both find is counted once (the larger count of each
// rule). The newline view has its own kept end, kept by the same rules
// (keepEnd: a data block open in that view stays open in it) within the
// same bounds, while it differs from the kept end as written; where the
// boundary has a line break and the two kept ends are one, the text is
// scanned once.
const (
	// streamTail is how much of the last text of a stream is kept: a secret
	// up to this long that crosses a boundary is found.
	streamTail = 4 << 10
	// maxStreamTail bounds the tail kept for the vault's longest value or
	// encoded form (joinText): a longer one cut across messages is found
	// only while its start is within this many bytes.
	maxStreamTail = 64 << 10
	// maxStreams bounds the streams remembered per server; past it, the
	// streams of closed sessions are forgotten first, then any.
	maxStreams = 1024
	// maxSessionStreams bounds the streams of one session: past it, that
	// session's own streams are forgotten first (evictFrom). Progress
	// tokens are the client's: one session that made a thousand calls,
	// each with a token of its own, filled the table and pushed out
	// another session's stream in the middle of a Secret's data block,
	// whose next entries went out in the clear (red team rta).
	maxSessionStreams = maxStreams / 4
	// blockTail is the kept end of a stream inside a Kubernetes Secret's
	// data block (keepBlock), unless the vault's values are longer.
	blockTail = 512
)

// A stream is a session's, and a call's when the message was sent with
// the context of a tool call the guard let through: two calls of one tool
// that log their output under one logger at once (the model runs kubectl
// twice) are two streams. As one, the other call's line between two lines
// of a Secret's data block ended the block, and its next entries went out
// in the clear (red team rtw). A call's first message is joined with the
// end of the session's stream of the same name, the last message of any
// call (a command's output logged across calls that follow each other).
type streamKey struct {
	ss     weak.Pointer[mcp.ServerSession]
	call   weak.Pointer[call] // zero: no call in the context
	stream string
}

// session returns k without its call.
func (k streamKey) session() streamKey {
	k.call = weak.Pointer[call]{}
	return k
}

// streams remembers the end of the last text of each stream. It is safe
// for concurrent use.
type streams struct {
	mu     sync.Mutex
	tails  map[streamKey]kept
	counts map[weak.Pointer[mcp.ServerSession]]int // streams per session in tails
	clock  uint64                                  // counts writes: the least recently written stream is forgotten first
}

// kept is the kept end of one stream and when it was last written. nl is
// the kept end of the stream read with a line break at each boundary that
// has none, when split (it differs from tail): at most twice the memory
// per stream.
type kept struct {
	tail  string
	nl    string
	split bool
	// open: a secret runs to the very end of nl (the newline view's
	// entry cut mid-value), so the next boundary without a line break is
	// read in that view as written too (joinNewline).
	open bool
	// hold: a secret is open at the end of either view (a Secret's data
	// block): a session's stream that holds one is forgotten last (evict).
	hold bool
	used uint64
}

// join scans the text of a streamed notification joined with the end of
// the last one of its stream, and returns req with the text redacted,
// including its share of any secret that crosses the boundary (req itself
// when there is nothing to redact), with the findings in the text. The
// tail kept is the text as the tool wrote it, not as it was sent: a
// secret's first part may have been redacted under a generic rule
// ("token: ghp_..."), and the rule of the whole secret must still find the
// rest. A log message's structured data (outstream_data.go) is a stream per
// string member. An error means the data could not be scanned: the message
// must not be sent.
//
// sc, when set, is the guard's injected vault values (vaultscrub.go): the
// text loses its share of a value that crosses the boundary, and an end
// that starts a value (consent/vault Scrubber.Stream). s may be nil (no
// DLP): then only sc applies.
func (st *streams) join(s *dlp.Scanner, sc *vault.Scrubber, c *call, req mcp.Request) (mcp.Request, []dlp.Finding, error) {
	r, isReq := req.(*mcp.ServerRequest[mcp.Params])
	if !isReq || r.Session == nil {
		return req, nil, nil
	}
	key := streamKey{ss: weak.Make(r.Session)}
	if c != nil {
		key.call = weak.Make(c)
	}
	rebuild := func(p mcp.Params) mcp.Request {
		c := *r
		c.Params = p
		return &c
	}
	switch p := r.Params.(type) {
	case *mcp.LoggingMessageParams:
		if p == nil || p.Data == nil {
			return req, nil, nil
		}
		key.stream = "log\x00" + p.Logger
		if b, isBytes := p.Data.([]byte); isBytes {
			// A command's output logged as read (buf[:n]) goes out
			// base64-encoded, chunk by chunk: the bytes are the stream,
			// not their encodings, which do not join (red team rth).
			text := string(b)
			red, findings := st.joinText(s, sc, key, text)
			if red != text {
				c := *p
				c.Data = []byte(red)
				req = rebuild(&c)
			}
			return req, findings, nil
		}
		if text, isStr := p.Data.(string); isStr {
			red, findings := st.joinText(s, sc, key, text)
			if red != text {
				c := *p
				c.Data = red
				req = rebuild(&c)
			}
			return req, findings, nil
		}
		data, findings, err := st.joinData(s, sc, key, p.Data)
		if err != nil || data == nil {
			return req, findings, err
		}
		c := *p
		c.Data = data
		return rebuild(&c), findings, nil
	case *mcp.ProgressNotificationParams:
		if p == nil || p.Message == "" {
			return req, nil, nil
		}
		key.stream = fmt.Sprintf("progress\x00%T\x00%v", p.ProgressToken, p.ProgressToken)
		red, findings := st.joinText(s, sc, key, p.Message)
		if red != p.Message {
			c := *p
			c.Message = red
			req = rebuild(&c)
		}
		return req, findings, nil
	}
	return req, nil, nil
}

// joinText scans text joined with the end of the last text of key's
// stream, remembers the new end (the text as the tool wrote it), and
// returns text with its share of every secret, and of every injected vault
// value (sc, may be nil), redacted, and the findings text adds. s may be
// nil: then only sc applies.
//
// Both look at the text as the tool wrote it, and their redactions are
// merged: scanned after the vault's markers went in, a secret the rule
// recognizes by its run of lines (a PEM key's body) ended at a line that
// carried a vault value, and the lines after it went out; and where a
// secret still open at the end starts was known only in the scrubbed text,
// so the merge of rtf and rtg stopped looking for it (red team rth).
//
// The stream is read both ways (the comment at the top of the file): as
// written, and with a line break at each boundary that has none (the
// newline view, kept as kept.nl while it differs). The text loses what
// either reading finds in it.
//
// Two messages of one stream can be sent at once (a command's stdout and
// stderr copied to one logger by two goroutines): each was joined with
// the end both read, the one stored last won, and the other's text (a
// Secret's header) was lost from the kept end, so the entries that came
// next went out in the clear (red team rta). A message is kept only if
// no other one of its stream was stored since its end was read; else it
// is joined again with the newer end (maxRejoins times, then kept as is).
func (st *streams) joinText(s *dlp.Scanner, sc *vault.Scrubber, key streamKey, text string) (string, []dlp.Finding) {
	for try := 0; ; try++ {
		st.mu.Lock()
		from := key
		k, known := st.tails[key]
		if !known && key.call != (weak.Pointer[call]{}) {
			from = key.session()
			k = st.tails[from] // the call's first message
		}
		st.mu.Unlock()
		out, findings, next := joinKept(s, sc, k, text)
		if st.storeIf(key, next, from, k.used, try >= maxRejoins) {
			return out, findings
		}
	}
}

// maxRejoins bounds how many times a message is joined again with its
// stream's newer end (joinText).
const maxRejoins = 8

// joinKept scans text joined with k, the kept end of its stream, and
// returns text redacted, the findings text adds and the new kept end.
func joinKept(s *dlp.Scanner, sc *vault.Scrubber, k kept, text string) (string, []dlp.Finding, kept) {
	tail := k.tail
	// The kept end holds the longest value or encoding the vault scrubs,
	// less a byte: past it, the rest of a longer one (the hex of a
	// private key) was no longer known to be one (red team rth). Up to
	// maxStreamTail: at most 64 MiB for the table of a server whose vault
	// holds values that long.
	size := min(max(streamTail, sc.Reach()-1), maxStreamTail)
	marks := sc.StreamMarks(tail, text)
	if s == nil {
		return merge(text, len(tail), marks, nil), nil, kept{tail: keepEnd(tail, text, -1, "", size)}
	}
	out, joined, findings := read(s, tail, text)
	end, hold := keepRead(joined, tail, text, size, sc)
	if len(marks) > 0 {
		out = merge(text, len(tail), marks, joined)
	}
	next := kept{tail: end, hold: hold}
	// A line break at the boundary, and none before it read otherwise:
	// both readings are one, scanned once.
	broken := tail == "" || strings.HasSuffix(tail, "\n") || strings.HasPrefix(text, "\n")
	if !broken || k.split {
		nl := tail
		if k.split {
			nl = k.nl
		}
		moved, nlFound, nlEnd, open := joinNewline(s, sc, nl, tail, text, size, !broken, k.split && k.open)
		if len(moved) > 0 {
			out = merge(text, len(tail), marks, append(joined, moved...))
			findings = maxFindings(findings, nlFound)
		}
		if nlEnd != end {
			next.nl, next.split, next.open = nlEnd, true, open
			next.hold = next.hold || open
		}
	}
	return out, findings, next
}

// joinNewline reads text joined with nl, the kept end of the newline view,
// with a line break between them when brk (the boundary has none), and
// returns the ranges it finds in text moved to text's offsets in tail+text
// (shift), their findings, the view's new kept end, and whether a secret
// runs to its very end.
//
// A tool that logs what bufio.Reader's ReadLine returns sends a line per
// message without its newline, and a line longer than the reader's buffer
// in pieces, the last without a newline either: a Secret's data entry
// longer than 4 KiB (the base64 of an RSA 4096 key) was cut mid-value,
// the newline view took the rest for a line of its own, no entry of the
// block, and the view as written had no Secret header: the rest went out
// in the clear (red team rta). So when a secret runs to the very end of
// the newline view (open), the boundary is read in that view as written
// too, and where that reading carries the secret on to the end of text
// (text is all its continuation), it is the view's reading from then on.
func joinNewline(s *dlp.Scanner, sc *vault.Scrubber, nl, tail, text string, size int, brk, open bool) (moved, found []dlp.Finding, end string, stillOpen bool) {
	sep := ""
	if brk {
		sep = "\n" // not in text: its offsets are len(nl)+1 on
	}
	// One scan of the whole: what the tail or the text holds alone, the
	// reading as written has found.
	head := nl + sep
	_, joined := s.Redact(head + text)
	moved, found = shift(joined, len(head), len(tail))
	if brk && open && piece(nl, text) {
		_, written := s.Redact(nl + text)
		m, f := shift(written, len(nl), len(tail))
		moved, found = append(moved, m...), maxFindings(found, f)
		if runsOn(written, len(nl), len(nl)+len(text)) {
			joined, head = written, nl
		}
	}
	end, _ = keepRead(joined, head, text, size, sc)
	return moved, found, end, runsOn(joined, -1, len(head)+len(text))
}

// piece reports whether text may be the next piece of a value that the
// last line of nl was cut in. The tool did not say where its lines end,
// but base64 padding ends a value, a value cut by a reader's buffer holds
// no blank, and a YAML document marker ("---", "...") is a line of its
// own: read as the rest of the value before it, the marker that ends a
// Secret was redacted.
func piece(nl, text string) bool {
	return !strings.HasSuffix(nl, "=") && !strings.ContainsAny(text, " \t\r\n") &&
		!strings.HasPrefix(text, "---") && !strings.HasPrefix(text, "...")
}

// runsOn reports whether one range of findings runs from before from (any
// start when from < 0) to n.
func runsOn(findings []dlp.Finding, from, n int) bool {
	for _, f := range findings {
		for _, r := range f.Ranges {
			if r.End == n && (from < 0 || r.Start < from) {
				return true
			}
		}
	}
	return false
}

// read scans text joined with tail, the stream as written, and returns
// text redacted, the findings of the joined text (ranges in its offsets),
// and those text adds.
func read(s *dlp.Scanner, tail, text string) (out string, joined, findings []dlp.Finding) {
	if tail == "" {
		out, joined = s.Redact(text)
		return out, joined, joined
	}
	outs, joined := s.RedactParts([]string{tail, text})
	_, before := s.Redact(tail)
	return outs[1], joined, subtract(joined, before)
}

// keepRead returns the end to keep of one reading of a stream, tail+text,
// whose findings are joined, and whether a secret is open at its end.
func keepRead(joined []dlp.Finding, tail, text string, size int, sc *vault.Scrubber) (string, bool) {
	open, rule := openAt(joined, len(tail)+len(text), lastLine(tail, text))
	head := blockHead(tail+text, open, rule)
	if head != "" {
		// Inside a data block every entry is the block's secret, found
		// by its header: the kept end needs the header and the last
		// entries, not 4 KiB of them, each scanned again with every
		// message (the rules that read a block ran on the regexp
		// package's slower engine, about 1 ms per message for 4 KiB;
		// dlp's line readers now take a few µs, and the rest of the pack
		// about 20 µs per 4 KiB).
		size = min(size, max(blockTail, sc.Reach()-1))
	}
	return keepEnd(tail, text, open, head, size), open >= 0
}

// shift returns the ranges of findings (offsets into a joined text whose
// text starts at from) that fall in the text, moved to start at to instead,
// and per rule how many secrets they are. A rule whose ranges were not all
// kept (more than dlp.MaxRanges) keeps its count, so merge redacts the
// whole text.
func shift(findings []dlp.Finding, from, to int) (moved, found []dlp.Finding) {
	for _, f := range findings {
		var rs []dlp.Range
		for _, r := range f.Ranges {
			if r.End > from {
				rs = append(rs, dlp.Range{Start: max(r.Start, from) - from + to, End: r.End - from + to, Encoding: r.Encoding})
			}
		}
		n := len(rs)
		if len(f.Ranges) < f.Count {
			n = f.Count
		}
		if n > 0 {
			moved = append(moved, dlp.Finding{Rule: f.Rule, Count: n, Ranges: rs})
			found = append(found, dlp.Finding{Rule: f.Rule, Count: n})
		}
	}
	return moved, found
}

// merge returns text, which starts at off in the joined text that marks
// and the ranges of findings are offsets into, with the bytes of each
// replaced by its marker; overlapping ones are one, under the first
// marker. When the findings do not hold every range (more than
// dlp.MaxRanges of a rule), the whole text is replaced.
func merge(text string, off int, marks []vault.Mark, findings []dlp.Finding) string {
	all := slices.Clone(marks)
	for _, f := range findings {
		if len(f.Ranges) < f.Count {
			return "[REDACTED:" + f.Rule + "]"
		}
		for _, r := range f.Ranges {
			all = append(all, vault.Mark{Start: r.Start, End: r.End, Marker: "[REDACTED:" + f.Rule + "]"})
		}
	}
	slices.SortStableFunc(all, func(a, b vault.Mark) int { return a.Start - b.Start })
	var b strings.Builder
	at := 0 // in text
	for i := 0; i < len(all); {
		m := all[i]
		end := m.End
		for i++; i < len(all) && all[i].Start < end; i++ {
			end = max(end, all[i].End)
		}
		a, e := max(m.Start-off, at), min(end-off, len(text))
		if a >= e {
			continue
		}
		b.WriteString(text[at:a])
		b.WriteString(m.Marker)
		at = e
	}
	if at == 0 && b.Len() == 0 {
		return text
	}
	b.WriteString(text[at:])
	return b.String()
}

// openAt returns where the secret that runs to the end of a text of n
// bytes starts (the leftmost, when several rules matched up to the end),
// or -1: such a secret may go on in the next message. So may one that runs
// to last, the start of an unfinished last line (an entry of a data block
// cut before its colon).
func openAt(findings []dlp.Finding, n, last int) (open int, rule string) {
	open = -1
	for _, f := range findings {
		for _, r := range f.Ranges {
			if (r.End == n || r.End == last) && (open < 0 || r.Start < open) {
				open, rule = r.Start, f.Rule
			}
		}
	}
	return open, rule
}

// lastLine returns where the last line of tail+text starts.
func lastLine(tail, text string) int {
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		return len(tail) + i + 1
	}
	return strings.LastIndexByte(tail, '\n') + 1
}

// subtract returns the findings of a that b does not account for, per rule:
// the secrets of the joined text less those the tail held alone.
func subtract(a, b []dlp.Finding) []dlp.Finding {
	var out []dlp.Finding
	for _, f := range a {
		n := f.Count
		for _, g := range b {
			if g.Rule == f.Rule {
				n -= g.Count
			}
		}
		if n > 0 {
			out = append(out, dlp.Finding{Rule: f.Rule, Count: n})
		}
	}
	return out
}

// remember keeps the last streamTail bytes of tail+text for key (keep).
func (st *streams) remember(key streamKey, tail, text string, open int) {
	st.keep(key, tail, text, open, "", streamTail)
}

// keepEnd returns the last size bytes of tail+text, the kept end. When a secret
// that started more than size bytes back runs to the end of tail+text
// (open is its start), the tail kept is its first half (size/2 bytes, cut
// back to a line's end) followed by the last whole lines: a rule that
// needs the start of the secret to recognize the rest (a PEM private key's
// BEGIN line) still finds it in the next message however long the secret
// grows. Left to the last 4 KiB, the lines of a long key (RSA 4096 with a
// timestamp on each line is over 6 KiB) went out in the clear once its
// BEGIN line dropped off.
//
// A head (blockHead) is the header of a data block open at the end: the
// kept end is the head and the block's entries (keepBlock). The line of a
// Secret's kind whose data block has not started yet is kept before the
// last lines (keepKind).
func keepEnd(tail, text string, open int, head string, size int) string {
	switch n := len(tail) + len(text); {
	case head != "":
		tail = keepBlock(tail+text, head, open, size)
	case open >= 0 && n-open > size:
		joined := tail + text
		head := joined[open : open+size/2]
		if i := strings.LastIndexByte(head, '\n'); i > 0 {
			head = head[:i+1]
		}
		rest := joined[n-(size-len(head)):]
		if i := strings.IndexByte(rest, '\n'); i >= 0 && i+1 < len(rest) {
			rest = rest[i+1:]
		}
		tail = head + rest
	case open < 0 && n > size && kindBefore(tail, text, size):
		tail = keepKind(tail+text, size)
	case len(text) < size:
		tail = tail[max(0, len(tail)-(size-len(text))):] + text
	default:
		tail = text[len(text)-size:]
	}
	return tail
}

// keep keeps the end of tail+text for key (keepEnd).
func (st *streams) keep(key streamKey, tail, text string, open int, head string, size int) {
	st.store(key, kept{tail: keepEnd(tail, text, open, head, size)})
}

// store keeps k as key's stream, and as its session's when key is a
// call's.
func (st *streams) store(key streamKey, k kept) {
	st.storeIf(key, k, key, 0, true)
}

// storeIf stores k as store does when force, or when the stream from
// (key's, or its session's for a call's first message) was last written
// at used (0: not known), and reports whether it did.
func (st *streams) storeIf(key streamKey, k kept, from streamKey, used uint64, force bool) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !force && st.tails[from].used != used {
		return false
	}
	if st.tails == nil {
		st.tails = map[streamKey]kept{}
		st.counts = map[weak.Pointer[mcp.ServerSession]]int{}
	}
	st.clock++
	k.used = st.clock
	st.put(key, k)
	if key.call != (weak.Pointer[call]{}) {
		st.put(key.session(), k)
	}
	return true
}

// put keeps k as key's stream, making room for a new one: in its
// session's share of the table first, then in the table.
func (st *streams) put(key streamKey, k kept) {
	if _, known := st.tails[key]; !known {
		if st.counts[key.ss] >= maxSessionStreams {
			st.evictFrom(key.ss)
		} else if len(st.tails) >= maxStreams {
			st.evict()
		}
		st.counts[key.ss]++
	}
	st.tails[key] = k
}

// forget forgets key's stream.
func (st *streams) forget(key streamKey) {
	if _, known := st.tails[key]; !known {
		return
	}
	delete(st.tails, key)
	if st.counts[key.ss]--; st.counts[key.ss] <= 0 {
		delete(st.counts, key.ss)
	}
}

// evictFrom forgets the least recently written stream of a call of ss,
// or else of ss.
func (st *streams) evictFrom(ss weak.Pointer[mcp.ServerSession]) {
	var oldest streamKey
	least, isCall := ^uint64(0), false
	for k, t := range st.tails {
		if k.ss != ss {
			continue
		}
		c := k.call != (weak.Pointer[call]{})
		if c && !isCall || c == isCall && t.used < least {
			oldest, least, isCall = k, t.used, c
		}
	}
	if least != ^uint64(0) {
		st.forget(oldest)
	}
}

// evict forgets the streams of collected sessions and calls, or else the
// least recently written stream of a call, or of a session (under churn,
// a stream being written is not forgotten before those written once long
// ago).
func (st *streams) evict() {
	n := len(st.tails)
	for k := range st.tails {
		if k.ss.Value() == nil || k.call != (weak.Pointer[call]{}) && k.call.Value() == nil {
			st.forget(k)
		}
	}
	if len(st.tails) < n {
		return
	}
	// A call's stream goes first: its session's stream of the name holds
	// its last end too, for its next message. Many calls, each a stream,
	// then push out no session's stream (a Secret's header another
	// session is streaming slowly). Then a session's stream with no
	// secret open at its end: many sessions, each with a stream of its
	// own (maxSessionStreams), push out no stream inside a Secret's data
	// block while any other is left (red team rta).
	var oldest [3]streamKey // a call's, a session's, a session's that holds a secret
	least := [3]uint64{^uint64(0), ^uint64(0), ^uint64(0)}
	for k, t := range st.tails {
		i := 1
		switch {
		case k.call != (weak.Pointer[call]{}):
			i = 0
		case t.hold:
			i = 2
		}
		if t.used < least[i] {
			oldest[i], least[i] = k, t.used
		}
	}
	for i := range oldest {
		if least[i] != ^uint64(0) {
			st.forget(oldest[i])
			return
		}
	}
}
