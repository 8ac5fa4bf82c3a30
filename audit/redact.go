package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
)

// Redactor rewrites the JSON object of tool arguments before it is logged
// (AIP §6.2: args SHOULD be redacted). It is given the arguments in the
// log's canonical form ([Canonical]), so that it sees every value as the log
// will show it (a number sent as 4.111111111111111e15 is logged, and
// scanned, as 4111111111111111). It returns valid JSON; an error fails
// the Write, so unredacted arguments are never logged by mistake. It should
// keep numbers as written (decoding them into float64 rounds those beyond
// double precision, and the log then records other values than the call
// carried). It must be safe for concurrent use: Writes call it in parallel,
// outside the Writer's lock.
//
// A DLP scanner whose method also returns its findings fits through
// [RedactorFunc] in one line:
//
//	audit.RedactorFunc(func(raw []byte) ([]byte, error) { out, _, err := sc.RedactJSON(raw); return out, err })
type Redactor interface {
	RedactJSON(raw []byte) ([]byte, error)
}

// RedactorFunc adapts a function to [Redactor].
type RedactorFunc func(raw []byte) ([]byte, error)

// RedactJSON calls f.
func (f RedactorFunc) RedactJSON(raw []byte) ([]byte, error) { return f(raw) }

var _ Redactor = RedactorFunc(nil)

// encoder turns the caller's Args and Metadata into canonical JSON before the
// Writer takes its lock. Encoders are pooled; one is used by one Write at a
// time.
type encoder struct {
	c    canon
	pre  canon // the arguments a Redactor is given
	args []byte
	meta []byte
	b    lineBuilder
	line []byte
	ts   []byte // the timestamp, formatted once per line
	both []byte // event_hash and timestamp, made into one string
	h    hash.Hash
	mac  hash.Hash
}

func newEncoder(o *Options) *encoder {
	e := &encoder{h: sha256.New()}
	if len(o.ArgHashKey) > 0 {
		e.mac = hmac.New(sha256.New, o.ArgHashKey)
	}
	return e
}

// prepare canonicalizes ev.Args (after redaction, and as per-argument hashes
// with HashArgs) and ev.Metadata.
func (e *encoder) prepare(ev *Event, o *Options) error {
	e.args, e.meta = e.args[:0], e.meta[:0]
	if raw := ev.Args; len(raw) > 0 && string(raw) != "null" {
		if o.Redactor != nil {
			if err := e.pre.transform(raw); err != nil {
				return fmt.Errorf("%w: %w", ErrArgs, err)
			}
			red, err := o.Redactor.RedactJSON(e.pre.out)
			if err != nil {
				return fmt.Errorf("%w: redactor: %w", ErrArgs, err)
			}
			raw = red
		}
		if err := e.c.transform(raw); err != nil {
			return fmt.Errorf("%w: %w", ErrArgs, err)
		}
		if e.c.out[0] != '{' {
			return fmt.Errorf("%w: not a JSON object", ErrArgs)
		}
		if o.HashArgs {
			e.hashArgs()
		} else {
			e.args = append(e.args, e.c.out...)
		}
	}
	if ev.Metadata != nil {
		raw, err := json.Marshal(ev.Metadata)
		if err != nil {
			return fmt.Errorf("audit: metadata: %w", err)
		}
		if err := e.c.transform(raw); err != nil {
			return fmt.Errorf("audit: metadata: %w", err)
		}
		e.meta = append(e.meta, e.c.out...)
	}
	return nil
}

// hashArgs replaces each argument value with "sha256:<hex>" of its canonical
// form, or "hmac-sha256:<hex>" keyed with Options.ArgHashKey. Names stay, so
// the log still shows which arguments a call had.
func (e *encoder) hashArgs() {
	h, prefix := e.h, "sha256:"
	if e.mac != nil {
		h, prefix = e.mac, "hmac-sha256:"
	}
	var sum [sha256.Size]byte
	e.args = append(e.args, '{')
	for i, m := range e.c.mem {
		if i > 0 {
			e.args = append(e.args, ',')
		}
		e.args = append(e.args, e.c.out[m.Start:m.Start+m.Value]...) // "name":
		h.Reset()
		h.Write(e.c.out[m.Start+m.Value : m.End])
		e.args = append(e.args, '"')
		e.args = append(e.args, prefix...)
		e.args = hex.AppendEncode(e.args, h.Sum(sum[:0]))
		e.args = append(e.args, '"')
	}
	e.args = append(e.args, '}')
}
