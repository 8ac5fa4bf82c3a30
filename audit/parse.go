package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
)

// hashPrefix starts every event_hash and previous_event_hash.
const hashPrefix = "sha256:"

// Punctuation written to hash.Hash values (shared, so writing them does not
// allocate).
var (
	openBrace  = []byte{'{'}
	comma      = []byte{','}
	closeBrace = []byte{'}'}
)

// nullSeg is the canonical previous_event_hash of a genesis event.
const nullSeg = "null"

// eventInfo is what the chain rules need from one line. Hash values are kept
// as canonical JSON segments (`"sha256:..."` or `null`) so that comparing them
// compares exactly what was hashed.
type eventInfo struct {
	seq      uint64
	hashSeg  string // canonical event_hash value as written
	prevSeg  string // canonical previous_event_hash value: `null` or a string
	computed string // `"sha256:<hex>"` recomputed from the line
	decision string
	event    []byte // the event member's text (AIP §6.4); valid until the next parse
	traceID  string // trace_id and span_id as written (canonical, unquoted)
	spanID   string
}

func (e *eventInfo) genesis() bool { return e.prevSeg == nullSeg }

// hashString returns the event_hash string without quotes.
func (e *eventInfo) hashString() string { return unquote(e.hashSeg) }

func unquote(seg string) string {
	if len(seg) >= 2 && seg[0] == '"' {
		return seg[1 : len(seg)-1]
	}
	return seg
}

// eventParser canonicalizes lines and recomputes their hashes. Not safe for
// concurrent use.
type eventParser struct {
	c   canon
	h   hash.Hash
	sum [sha256.Size]byte
	hex [2*sha256.Size + len(hashPrefix) + 2]byte
}

func newEventParser() *eventParser { return &eventParser{h: sha256.New()} }

// parse reads one line (without its newline). A non-nil error means the line
// is not an event of this format (KindMalformed).
func (p *eventParser) parse(line []byte) (eventInfo, error) {
	var info eventInfo
	if err := p.c.transform(line); err != nil {
		return info, err
	}
	out := p.c.out
	if out[0] != '{' {
		return info, errMalformed("not a JSON object")
	}
	var haveSeq, haveHash, havePrev bool
	hashAt := -1
	for i, m := range p.c.mem {
		val := out[m.Start+m.Value : m.End]
		switch string(m.Name) {
		case "seq":
			n, ok := parseSeq(string(val))
			if !ok {
				return info, errMalformed("seq is not an integer from 1 to 2^53-1")
			}
			info.seq, haveSeq = n, true
		case "event_hash":
			if val[0] != '"' {
				return info, errMalformed("event_hash is not a string")
			}
			info.hashSeg, haveHash, hashAt = string(val), true, i
		case "previous_event_hash":
			if string(val) != nullSeg && val[0] != '"' {
				return info, errMalformed("previous_event_hash is neither a string nor null")
			}
			info.prevSeg, havePrev = string(val), true
		case "decision":
			if val[0] == '"' {
				info.decision = string(val[1 : len(val)-1])
			}
		case "event":
			if len(val) >= 2 && val[0] == '"' {
				info.event = val[1 : len(val)-1]
			}
		case "trace_id":
			info.traceID = stringValue(val)
		case "span_id":
			info.spanID = stringValue(val)
		}
	}
	switch {
	case !haveSeq:
		return info, errMalformed("no seq")
	case !haveHash:
		return info, errMalformed("no event_hash")
	case !havePrev:
		return info, errMalformed("no previous_event_hash")
	}
	// event_hash = SHA-256 of the canonical object without event_hash: the
	// members are already sorted, so leave that one segment out.
	p.h.Reset()
	p.h.Write(openBrace)
	first := true
	for i, m := range p.c.mem {
		if i == hashAt {
			continue
		}
		if !first {
			p.h.Write(comma)
		}
		first = false
		p.h.Write(out[m.Start:m.End])
	}
	p.h.Write(closeBrace)
	info.computed = p.hashSeg()
	return info, nil
}

// stringValue is a canonical JSON string's text without its quotes, or ""
// for any other value.
func stringValue(val []byte) string {
	if len(val) < 2 || val[0] != '"' {
		return ""
	}
	return string(val[1 : len(val)-1])
}

func (p *eventParser) hashSeg() string {
	p.h.Sum(p.sum[:0])
	b := p.hex[:0]
	b = append(b, '"')
	b = append(b, hashPrefix...)
	b = hex.AppendEncode(b, p.sum[:])
	b = append(b, '"')
	return string(b)
}

// parseSeq accepts a canonical positive integer below 2^53 (exact in every
// JSON implementation).
func parseSeq(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 16 || s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n >= 1<<53 {
		return 0, false
	}
	return n, true
}

type malformedError string

func (e malformedError) Error() string { return "audit: " + string(e) }

func errMalformed(msg string) error { return malformedError(msg) }
