package mcpredact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// A JSON text whose object has two members of one name ({"password": "a",
// "password": "..."}) is read differently by its readers: most keep the
// last, some the first, a streaming one sees both. Refused as a tree
// (decodeTree), it was left to the text rules, so the names the named
// scan reads did not count there, and a duplicate could hide a
// credential's name from a reader that keeps the other one ({"k":
// "STRIPE_SECRET", "k": "x", "v": "..."}, red team rtr). A JSON text is
// now decoded with its duplicates kept (decodeDups); the named scan reads
// such an object as the first reader sees it, as the last one does, and
// each other duplicate alone under its name, so every value of a
// credential-named member is scanned with its name.

// dupObject is an object of a JSON text with two members of one name, its
// members in their order.
type dupObject struct {
	keys []string
	vals []any
}

// MarshalJSON writes the members in their order, duplicates included.
func (d *dupObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(d.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// maxDupDepth bounds the nesting decodeDups reads (encoding/json's own
// bound).
const maxDupDepth = 10000

var errTooDeep = errors.New("mcpredact: JSON text nested too deep")

// decodeDups decodes one JSON document as decodeTree does, but keeps an
// object with two members of one name as a *dupObject.
func decodeDups(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := readDups(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("mcpredact: data after the JSON document")
	}
	return v, nil
}

func readDups(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDupDepth {
		return nil, errTooDeep
	}
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return t, nil // string, json.Number, bool or nil
	}
	switch d {
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := readDups(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	case '{':
		obj := &dupObject{}
		seen := map[string]bool{}
		dup := false
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := readDups(dec, depth+1)
			if err != nil {
				return nil, err
			}
			dup = dup || seen[k]
			seen[k] = true
			obj.keys = append(obj.keys, k)
			obj.vals = append(obj.vals, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		if dup {
			return obj, nil
		}
		m := make(map[string]any, len(obj.keys))
		for i, k := range obj.keys {
			m[k] = obj.vals[i]
		}
		return m, nil
	}
	return nil, errors.New("mcpredact: unexpected JSON delimiter")
}

// dupObject scans a *dupObject's members with their names as the first
// and the last reader read them, each other duplicate alone, then walks
// every value once and scans its names.
func (w *walker) dupObject(d *dupObject) *dupObject {
	count := map[string]int{}
	for _, k := range d.keys {
		count[k]++
	}
	for _, last := range []bool{false, true} {
		m, at := map[string]any{}, map[string]int{}
		for i, k := range d.keys {
			if _, ok := m[k]; ok && !last {
				continue
			}
			m[k], at[k] = d.vals[i], i
		}
		w.kubernetesSecret(m)
		w.namedMembers(m)
		w.namedColumns(m)
		for k, i := range at {
			d.vals[i] = m[k]
		}
	}
	// Each other duplicate under its name, all in one scan.
	seen := map[string]int{}
	var first, second []member
	var held []map[string]any
	var at []int
	for i, k := range d.keys {
		seen[k]++
		if seen[k] == 1 || seen[k] == count[k] {
			continue // read in a view above
		}
		c := classify(k)
		if c == notCredential && !credentialName(k) {
			continue
		}
		m := map[string]any{k: d.vals[i]}
		held, at = append(held, m), append(at, i)
		first = appendStrings(first, k, m, k, d.vals[i])
		if c != notCredential {
			second = appendClassified(second, c, m, k, d.vals[i])
		}
	}
	w.scanNamed(first)
	w.scanNamed(second)
	for j, m := range held {
		d.vals[at[j]] = m[d.keys[at[j]]]
	}
	for i := range d.vals {
		d.vals[i] = w.walk(d.vals[i])
		if w.keysInText {
			continue
		}
		if nk, changed := w.text(d.keys[i]); changed {
			d.keys[i] = nk
		}
	}
	return d
}
