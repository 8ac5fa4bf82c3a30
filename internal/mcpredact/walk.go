package mcpredact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// walker redacts a JSON tree (as decoded with UseNumber) in place: the tree
// is the walker's own copy.
type walker struct {
	s        *dlp.Scanner
	o        Options
	findings []dlp.Finding
	changed  bool
	err      error
	// jsonDepth is how many JSON documents in strings the walk is inside.
	jsonDepth int
	// keysInText: the object keys being walked are written as they are
	// in a text the scan reads whole (a YAML text), so they are not
	// scanned one by one.
	keysInText bool
	// docBudget is what is left of the bytes the walk may read in
	// documents inside one string (enterDoc).
	docBudget int
	// rowsJoined: the array walk is called on next is an element of one
	// whose strings, its own among them, were joined (joinRows); the walk
	// of an array reads and clears it.
	rowsJoined bool
	// urlDepth is how many URLs the walk is inside, read decoded (uri.go).
	urlDepth int
	// assignValues is how many values assignText has read under their
	// names in the walk (maxAssignValues).
	assignValues int
}

// scanned is a string already redacted as part of a group (joined content
// text, a base64 payload): the walk does not scan it again.
type scanned string

func (w *walker) walk(v any) any {
	switch x := v.(type) {
	case string:
		x = w.uris(x)
		if doc, ok := w.jsonText(x); ok {
			x = doc
		} else if t, ok := w.textTable(x); ok {
			x = t
		} else if y, ok := w.yamlText(x); ok {
			x = y
		} else if a, ok := w.assignText(x); ok {
			x = a
		}
		out, _ := w.text(x)
		return out
	case scanned:
		x = scanned(w.uris(string(x)))
		if doc, ok := w.jsonText(string(x)); ok {
			return doc
		}
		if t, ok := w.textTable(string(x)); ok {
			return t
		}
		if y, ok := w.yamlText(string(x)); ok {
			return y
		}
		if a, ok := w.assignText(string(x)); ok {
			return a
		}
		return string(x)
	case typeText:
		return scanned(x)
	case json.Number:
		if out, changed := w.text(string(x)); changed {
			return out
		}
		return x
	case []any:
		w.namedRows(x)
		w.joinTexts(x)
		// The strings of the arrays inside an array were joined with
		// its own (joinRows): joined again at each level, an array
		// nested thousands deep cost its depth squared (red team ruc).
		if !w.rowsJoined {
			w.joinRows(x)
		}
		w.rowsJoined = false
		w.joinColumns(x)
		w.namedStrings(x)
		for i := range x {
			_, w.rowsJoined = x[i].([]any)
			x[i] = w.walk(x[i])
		}
		w.rowsJoined = false
		return x
	case map[string]any:
		return w.object(x)
	case *dupObject:
		return w.dupObject(x)
	}
	return v
}

// object redacts an object's base64 payloads, then every key and value.
func (w *walker) object(m map[string]any) map[string]any {
	if b, ok := m["blob"].(string); ok && m["uri"] != nil {
		m["blob"] = w.payload("resource blob", b)
	}
	if rs, ok := m["requestState"].(string); ok {
		m["requestState"] = w.opaque(rs)
	}
	w.kubernetesSecret(m)
	w.namedMembers(m)
	w.namedColumns(m)
	w.joinNumbered(m)
	if t := str(m["type"]); t == "image" || t == "audio" {
		if d, ok := m["data"].(string); ok {
			m["data"] = w.payload(t+" data", d)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := w.walk(m[k])
		if w.keysInText {
			m[k] = v
			continue
		}
		nk, changed := w.text(k)
		if !changed {
			m[k] = v
			continue
		}
		delete(m, k)
		for _, taken := m[nk]; taken; _, taken = m[nk] {
			nk += "~"
		}
		m[nk] = v
	}
	return m
}

// kubernetesSecret redacts the values of a Kubernetes Secret object's data
// and stringData (a tool that returns the API's objects as structured
// content). They are base64 of anything, so a rule finds them only with
// the object's kind in view, which the scan of one string lacks: each
// value is scanned inside a minimal Secret manifest built around it, and
// the scanner's own rules decide.
func (w *walker) kubernetesSecret(m map[string]any) {
	if str(m["kind"]) != "Secret" {
		return
	}
	for _, field := range []string{"data", "stringData"} {
		d, ok := m[field].(map[string]any)
		if !ok {
			continue
		}
		for k, v := range d {
			val, ok := v.(string)
			if !ok || val == "" {
				continue
			}
			q, err := json.Marshal(val)
			if err != nil {
				continue
			}
			_, f := w.s.Redact(`{"kind":"Secret","` + field + `":{"k":` + string(q) + `}}`)
			if len(f) == 0 {
				continue
			}
			w.add(f)
			w.changed = true
			d[k] = scanned("[REDACTED:" + f[0].Rule + "]")
		}
	}
}

// str returns v as a string, whether or not a joined scan has marked it.
func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case scanned:
		return string(x)
	case typeText:
		return string(x)
	}
	return ""
}

// joinTexts scans the texts of the items of an array together (content
// items, prompt or sampling messages), so that a secret split across items
// is found; each text is replaced by its redacted share and not scanned
// again.
func (w *walker) joinTexts(items []any) {
	var refs []map[string]any
	var parts []string
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		for _, holder := range []any{m, m["resource"], m["content"]} {
			h, ok := holder.(map[string]any)
			if !ok {
				continue
			}
			if t, ok := h["text"].(string); ok {
				refs = append(refs, h)
				parts = append(parts, t)
				break
			}
		}
	}
	if len(parts) < 2 {
		return
	}
	out, f := w.s.RedactParts(parts)
	w.add(f)
	w.joinEncoded(out)
	for i, h := range refs {
		if out[i] != parts[i] {
			w.changed = true
		}
		h["text"] = scanned(out[i])
	}
}

// joinColumns scans the strings of an array together: its string elements
// (the lines of a file returned as ["-----BEGIN ... PRIVATE KEY-----",
// "MIIE...", ...]), and the string values under one key in its object
// elements ([{"line": "..."}, {"line": "..."}]), so that a secret split
// across elements is found. Content texts (joinTexts) and base64 payloads
// (data, blob: scanned decoded by object) are left to their own scans.
func (w *walker) joinColumns(items []any) {
	if len(items) < 2 {
		return
	}
	var direct []int
	cols := map[string][]map[string]any{}
	var keys []string
	for i, it := range items {
		switch v := it.(type) {
		case string:
			direct = append(direct, i)
		case map[string]any:
			for k, val := range v {
				if _, ok := val.(string); !ok || k == "text" || k == "data" || k == "blob" {
					continue
				}
				if cols[k] == nil {
					keys = append(keys, k)
				}
				cols[k] = append(cols[k], v)
			}
		}
	}
	if len(direct) > 1 {
		parts := make([]string, len(direct))
		for j, i := range direct {
			parts[j] = items[i].(string)
		}
		for j, out := range w.parts(parts) {
			items[direct[j]] = out
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		ms := cols[k]
		if len(ms) < 2 {
			continue
		}
		parts := make([]string, len(ms))
		for j, m := range ms {
			parts[j] = m[k].(string)
		}
		for j, out := range w.parts(parts) {
			ms[j][k] = out
		}
	}
}

// joinRows scans the strings of an array of arrays together, in the order
// a reader reads them: a table's rows ([[1, "-----BEGIN ..."], [2,
// "MIIE..."]], a file as line number and text, a parsed CSV or grid), at
// any depth of arrays, so that a secret split across rows or cells is
// found. The strings of one row follow each other in the joined text, so
// what a row's own join would find is found too.
func (w *walker) joinRows(items []any) {
	if !slices.ContainsFunc(items, func(v any) bool { _, ok := v.([]any); return ok }) {
		return
	}
	type cell struct {
		row []any
		i   int
	}
	var cells []cell
	var collect func(row []any)
	collect = func(row []any) {
		for i, v := range row {
			switch x := v.(type) {
			case string:
				cells = append(cells, cell{row, i})
			case []any:
				collect(x)
			}
		}
	}
	collect(items)
	if len(cells) < 2 {
		return
	}
	parts := make([]string, len(cells))
	for j, c := range cells {
		parts[j] = c.row[c.i].(string)
	}
	for j, out := range w.parts(parts) {
		cells[j].row[cells[j].i] = out
	}
}

// joinNumbered scans the string values of an object whose member names are
// all numbers ({"1": "-----BEGIN ...", "2": "MIIE..."}: a file's lines by
// their numbers) joined in the numbers' order, as the lines of an array
// are (joinColumns).
func (w *walker) joinNumbered(m map[string]any) {
	if len(m) < 2 {
		return
	}
	type line struct {
		n    int
		name string
	}
	for k := range m {
		if k == "" || len(k) > 9 || strings.Trim(k, "0123456789") != "" {
			return
		}
	}
	lines := make([]line, 0, len(m))
	for k, v := range m {
		if _, ok := v.(string); ok {
			n, _ := strconv.Atoi(k)
			lines = append(lines, line{n, k})
		}
	}
	if len(lines) < 2 {
		return
	}
	slices.SortFunc(lines, func(a, b line) int { return a.n - b.n })
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = m[l.name].(string)
	}
	for i, out := range w.parts(parts) {
		m[lines[i].name] = out
	}
}

// parts scans texts joined and returns each one's redacted share, marked
// as scanned.
func (w *walker) parts(texts []string) []scanned {
	out, f := w.s.RedactParts(texts)
	w.add(f)
	res := make([]scanned, len(out))
	for i := range out {
		if out[i] != texts[i] {
			w.changed = true
		}
		res[i] = scanned(out[i])
	}
	return res
}

// payload decodes a base64 payload and scans the decoded bytes; a payload
// with a secret is re-encoded from the redacted bytes. The (re-encoded)
// payload is then scanned as text too, for a secret written into it as it
// is.
func (w *walker) payload(what, b64 string) any {
	dec, err := decodeBase64(b64)
	if err != nil {
		if w.o.Undecodable == ScanAsText {
			lit, _ := w.text(b64)
			return scanned(lit)
		}
		if w.err == nil {
			w.err = fmt.Errorf("%w: the %s is not valid base64 (%d bytes), so it was not sent", ErrUndecodable, what, len(b64))
		}
		return b64
	}
	enc := b64
	if red, changed := w.text(string(dec)); changed {
		enc = base64.StdEncoding.EncodeToString([]byte(red))
	}
	if lit, changed := w.text(enc); changed {
		enc = base64.StdEncoding.EncodeToString([]byte(lit))
	}
	return scanned(enc)
}

// opaque reads a server's opaque state (a result's requestState, which
// the client echoes on its retry: SEP-2322) decoded when it is base64, as
// servers write their state, and returns it redacted and encoded again
// when a secret is in it: the retry then fails, and the secret is not
// sent. State that is not base64 is walked as the string it is.
func (w *walker) opaque(s string) any {
	dec, err := decodeBase64(s)
	if err != nil || len(dec) == 0 {
		return s
	}
	red, changed := w.message(string(dec))
	if !changed {
		return s
	}
	return scanned(base64.StdEncoding.EncodeToString([]byte(red)))
}

func decodeBase64(s string) ([]byte, error) {
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		var b []byte
		if b, err = enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, err
}

// text redacts one string and records what was found.
func (w *walker) text(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	out, f := w.s.Redact(s)
	if len(f) == 0 {
		return s, false
	}
	if c := cutTails(s, f); len(c) != len(s) {
		out, f = w.s.Redact(c)
	}
	w.add(f)
	w.changed = true
	return out, true
}

func (w *walker) add(fs []dlp.Finding) {
	for _, f := range fs {
		w.findings = append(w.findings, dlp.Finding{Rule: f.Rule, Count: f.Count})
	}
}

// list returns the findings summed per rule, in first-seen order.
func (w *walker) list() []dlp.Finding {
	var out []dlp.Finding
	idx := map[string]int{}
	for _, f := range w.findings {
		if i, ok := idx[f.Rule]; ok {
			out[i].Count += f.Count
			continue
		}
		idx[f.Rule] = len(out)
		out = append(out, f)
	}
	return out
}
