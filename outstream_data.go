package gatehouse

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/dlp"
)

// maxDataStreams bounds the string members of one log message's data that
// are joined with their stream; the others are scanned alone (by
// mcpredact.Outgoing), so data with many members cannot push the other
// streams out of the table. The longest are joined: the output a tool
// streams, not its labels (red team rth: taken in member order, the line
// of a record with 64 labels before it was never joined).
const maxDataStreams = 64

// joinData scans the strings of a log message's structured data
// ({"stream": "stdout", "line": ...}, a struct, an array) each joined with
// the end of the same member in the last message of the logger: the
// member's path, array indices left out ("/lines/*"), is its stream, and
// the strings under one path in one message follow each other in it. It
// returns the data to send, as JSON with its numbers as written, or nil
// when nothing was redacted. An error means the data is not JSON.
func (st *streams) joinData(s *dlp.Scanner, sc *vault.Scrubber, key streamKey, data any) (json.RawMessage, []dlp.Finding, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, nil, fmt.Errorf("log data: %w", err)
	}
	if bytes.IndexByte(raw, '"') < 0 {
		return nil, nil, nil // no string
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("log data: %w", err)
	}
	v = withBytes(data, v)
	w := dataWalk{st: st, s: s, sc: sc, key: key}
	var lens []int
	stringLens(v, &lens)
	if len(lens) > maxDataStreams {
		w.joined = make([]bool, len(lens))
		order := make([]int, len(lens))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return lens[b] - lens[a] })
		for _, i := range order[:maxDataStreams] {
			w.joined[i] = true
		}
	}
	v = w.walk(v, "", "")
	if !w.changed {
		return nil, w.findings, nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("log data: %w", err)
	}
	return out, w.findings, nil
}

type dataWalk struct {
	st       *streams
	s        *dlp.Scanner
	sc       *vault.Scrubber // injected vault values, or nil
	key      streamKey
	n        int    // strings walked
	joined   []bool // by n, the strings joined with their streams; nil: all
	changed  bool
	findings []dlp.Finding
}

// walk returns v with the strings in it joined with their streams and
// redacted (maps and slices are changed in place: v is a fresh decoding).
// A string in an array is joined both with the strings under the same
// index (a record written as ["stdout", line]) and with all of its array's
// (lines: [...] of any length); when both redact it differently, it is
// redacted whole. The members of an object in an array are so too
// ("/lines/0/text" and "/lines/*/text"): with only their index's, a
// secret cut between the last line of a batch ({"lines": [{"text": ...}]})
// and the first of the next was joined with neither (red team rth).
func (w *dataWalk) walk(v any, path, alt string) any {
	switch x := v.(type) {
	case bytesLeaf:
		return []byte(w.walk(string(x), path, alt).(string))
	case string:
		w.n++
		if w.joined != nil && !w.joined[w.n-1] {
			return x
		}
		red, f := w.join(path, x)
		if alt != "" {
			red2, f2 := w.join(alt, x)
			switch {
			case red == x:
				red, f = red2, f2
			case red2 != x && red2 != red:
				f = maxFindings(f, f2)
				rule := "secret"
				if len(f) > 0 {
					rule = f[0].Rule
				}
				red = "[REDACTED:" + rule + "]"
			default:
				f = maxFindings(f, f2)
			}
		}
		w.findings = append(w.findings, f...)
		if red != x {
			w.changed = true
		}
		return red
	case map[string]any:
		names := slices.Sorted(maps.Keys(x))
		for _, name := range names {
			member := "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
			under := ""
			if alt != "" {
				under = alt + member
			}
			x[name] = w.walk(x[name], path+member, under)
		}
	case []any:
		for i, m := range x {
			x[i] = w.walk(m, path+"/"+strconv.Itoa(i), cmp.Or(alt, path)+"/*")
		}
	}
	return v
}

// bytesLeaf is a []byte of log data (output logged as read, buf[:n]),
// which goes out base64-encoded: its stream is its bytes, not their
// encodings, which do not join across messages (red team rth).
type bytesLeaf []byte

// withBytes returns v, the decoding of data's JSON, with the strings that
// are a []byte in data (under maps and slices of any) as a bytesLeaf.
func withBytes(data, v any) any {
	switch d := data.(type) {
	case []byte:
		if _, ok := v.(string); ok {
			return bytesLeaf(d)
		}
	case map[string]any:
		if m, ok := v.(map[string]any); ok {
			for k, e := range d {
				if _, ok := m[k]; ok {
					m[k] = withBytes(e, m[k])
				}
			}
		}
	case []any:
		if a, ok := v.([]any); ok && len(a) == len(d) {
			for i, e := range d {
				a[i] = withBytes(e, a[i])
			}
		}
	}
	return v
}

// stringLens appends the length of each string in v to lens, in walk's
// order.
func stringLens(v any, lens *[]int) {
	switch x := v.(type) {
	case bytesLeaf:
		*lens = append(*lens, len(x))
	case string:
		*lens = append(*lens, len(x))
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(x)) {
			stringLens(x[name], lens)
		}
	case []any:
		for _, m := range x {
			stringLens(m, lens)
		}
	}
}

func (w *dataWalk) join(path, text string) (string, []dlp.Finding) {
	k := w.key
	k.stream += "\x00" + path
	return w.st.joinText(w.s, w.sc, k, text)
}

// maxFindings merges two lists of findings of one text, keeping the larger
// count of each rule: the same secret found through two streams is one.
func maxFindings(a, b []dlp.Finding) []dlp.Finding {
	out := slices.Clone(a)
	for _, g := range b {
		i := slices.IndexFunc(out, func(f dlp.Finding) bool { return f.Rule == g.Rule })
		switch {
		case i < 0:
			out = append(out, g)
		case g.Count > out[i].Count:
			out[i] = g
		}
	}
	return out
}
