package gatehouse

import (
	"fmt"
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
// (one session's log messages of one logger, or its progress
// notifications of one token) and scans it joined with the next one: the
// next message loses its share of any secret that crosses the boundary.
// The share already sent cannot be taken back, so such a secret reaches the
// client truncated to its first part, never whole (dlp doc, # Security).
const (
	// streamTail is how much of the last text of a stream is kept: a secret
	// up to this long that crosses a boundary is found.
	streamTail = 4 << 10
	// maxStreams bounds the streams remembered per server; past it, the
	// streams of closed sessions are forgotten first, then any.
	maxStreams = 1024
)

type streamKey struct {
	ss     weak.Pointer[mcp.ServerSession]
	stream string
}

// streams remembers the end of the last text of each stream. It is safe
// for concurrent use.
type streams struct {
	mu    sync.Mutex
	tails map[streamKey]string
}

// streamText returns the text of a streamed notification, the stream it
// belongs to, and a copy of req with another text; ok is false for any
// other request.
func streamText(req mcp.Request) (key streamKey, text string, with func(string) mcp.Request, ok bool) {
	r, isReq := req.(*mcp.ServerRequest[mcp.Params])
	if !isReq || r.Session == nil {
		return streamKey{}, "", nil, false
	}
	key.ss = weak.Make(r.Session)
	rebuild := func(p mcp.Params) mcp.Request {
		c := *r
		c.Params = p
		return &c
	}
	switch p := r.Params.(type) {
	case *mcp.LoggingMessageParams:
		if s, isStr := p.Data.(string); isStr && p != nil {
			key.stream = "log\x00" + p.Logger
			return key, s, func(t string) mcp.Request { c := *p; c.Data = t; return rebuild(&c) }, true
		}
	case *mcp.ProgressNotificationParams:
		if p != nil && p.Message != "" {
			key.stream = fmt.Sprintf("progress\x00%T\x00%v", p.ProgressToken, p.ProgressToken)
			return key, p.Message, func(t string) mcp.Request { c := *p; c.Message = t; return rebuild(&c) }, true
		}
	}
	return streamKey{}, "", nil, false
}

// join scans the text of a streamed notification joined with the end of
// the last one of its stream, and returns req with the text redacted,
// including its share of any secret that crosses the boundary (req itself
// when there is nothing to redact), with the findings in the text. The
// tail kept is the text as the tool wrote it, not as it was sent: a
// secret's first part may have been redacted under a generic rule
// ("token: ghp_..."), and the rule of the whole secret must still find the
// rest.
//
// sc, when set, is the guard's injected vault values (vaultscrub.go): the
// text loses its share of a value that crosses the boundary, and an end
// that starts a value (consent/vault Scrubber.Stream). s may be nil (no
// DLP): then only sc applies.
func (st *streams) join(s *dlp.Scanner, sc *vault.Scrubber, req mcp.Request) (mcp.Request, []dlp.Finding) {
	key, text, with, ok := streamText(req)
	if !ok {
		return req, nil
	}
	st.mu.Lock()
	tail := st.tails[key]
	st.mu.Unlock()
	st.remember(key, tail, text)
	if sc != nil {
		if t := sc.Stream(tail, text); t != text {
			text, req = t, with(t)
		}
	}
	if s == nil {
		return req, nil
	}
	if tail == "" {
		red, findings := s.Redact(text)
		if red != text {
			req = with(red)
		}
		return req, findings
	}
	out, joined := s.RedactParts([]string{tail, text})
	if out[1] != text {
		req = with(out[1])
	}
	_, before := s.Redact(tail)
	return req, subtract(joined, before)
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

// remember keeps the last streamTail bytes of tail+text for key.
func (st *streams) remember(key streamKey, tail, text string) {
	if len(text) < streamTail {
		tail = tail[max(0, len(tail)-(streamTail-len(text))):] + text
	} else {
		tail = text[len(text)-streamTail:]
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.tails == nil {
		st.tails = map[streamKey]string{}
	}
	if _, known := st.tails[key]; !known && len(st.tails) >= maxStreams {
		st.evict()
	}
	st.tails[key] = tail
}

// evict forgets the streams of collected sessions, or else one stream.
func (st *streams) evict() {
	n := len(st.tails)
	for k := range st.tails {
		if k.ss.Value() == nil {
			delete(st.tails, k)
		}
	}
	if len(st.tails) < n {
		return
	}
	for k := range st.tails {
		delete(st.tails, k)
		return
	}
}
