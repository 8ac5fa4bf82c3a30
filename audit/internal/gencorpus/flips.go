package main

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"time"
	"unicode/utf8"
)

const flipMask = 0x01

// flips records, for every byte of a two-event log, what flipping its low
// bit must be reported as. The classification uses encoding/json, not the
// audit package: a line that still parses as an event is a tampered event
// (the hash must catch it); one that does not is malformed, or trailing
// garbage when it is the last line; a flipped newline merges or tears lines.
func (g *gen) flips() {
	lines, _ := baseLog(2, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	base := append(bytes.Join(lines, []byte("\n")), '\n')
	g.write("flip-base.jsonl", base)
	f := Flips{Base: "flip-base.jsonl", Mask: flipMask}
	pos := 0
	for li, line := range lines {
		last := li == len(lines)-1
		for i := range line {
			flipped := bytes.Clone(line)
			flipped[i] ^= flipMask
			c := Flip{Pos: pos + i, Kind: "tampered event", Line: li + 1}
			if !isEvent(flipped) {
				c.Kind = "malformed line"
				if last {
					c.Kind = "trailing garbage"
				}
			}
			f.Cases = append(f.Cases, c)
		}
		pos += len(line)
		// The newline: the final one tears the last line; another one
		// merges this line with the next into one line that is not JSON.
		c := Flip{Pos: pos, Kind: "torn line", Line: li + 1}
		if !last {
			c.Kind = "malformed line"
			if li+1 == len(lines)-1 {
				c.Kind = "trailing garbage"
			}
		}
		f.Cases = append(f.Cases, c)
		pos++
	}
	data, _ := json.MarshalIndent(f, "", " ")
	g.write("flips.json", append(data, '\n'))
}

var seqRE = regexp.MustCompile(`^[1-9][0-9]{0,15}$`)

// isEvent: valid UTF-8 JSON object without duplicate names, with a positive
// integer seq, a string event_hash and a string-or-null previous_event_hash.
func isEvent(line []byte) bool {
	if !utf8.Valid(line) || !json.Valid(line) || hasDuplicateNames(line) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m == nil {
		return false
	}
	seq, h, prev := m["seq"], m["event_hash"], m["previous_event_hash"]
	return seqRE.Match(seq) && len(h) > 0 && h[0] == '"' &&
		(string(prev) == "null" || (len(prev) > 0 && prev[0] == '"'))
}

func hasDuplicateNames(line []byte) bool {
	d := json.NewDecoder(bytes.NewReader(line))
	type frame struct {
		obj   bool
		names map[string]bool
		key   bool // next token is a name
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return true
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.key {
			if s, ok := tok.(string); ok {
				if top.names[s] {
					return true
				}
				top.names[s] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true // a value ends; the next token is a name or '}'
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, names: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
		}
	}
}
