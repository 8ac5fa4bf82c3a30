package scope

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// membersRef is the slow, obviously correct reference of members (a
// json.Decoder token stream); it calls f with the normalized name of every top-level member of
// the JSON object raw that wanted accepts, in order, duplicates included,
// and the leaves of its value: every string (object keys too), number as
// written and boolean, at any depth. Absent or null raw is an empty
// object; anything else but one object is ErrArgs.
func membersRef(raw json.RawMessage, wanted func(string) bool, f func(nk string, leaves []string)) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ErrArgs
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ErrArgs
		}
		key, _ := tok.(string)
		nk := normalize.Name(key)
		keep := wanted(nk)
		leaves, err := valueRef(dec, keep)
		if err != nil {
			return ErrArgs
		}
		if keep {
			f(nk, leaves)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return ErrArgs
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrArgs
	}
	return nil
}

// valueRef reads one JSON value from dec and returns its leaves (when keep).
func valueRef(dec *json.Decoder, keep bool) ([]string, error) {
	var out []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch x := tok.(type) {
		case json.Delim:
			if x == '{' || x == '[' {
				if depth++; depth+1 > maxDepth { // the object itself is one level

					return nil, ErrArgs
				}
			} else {
				depth--
			}
		case string:
			if keep {
				out = append(out, x)
			}
		case json.Number:
			if keep {
				out = appendScalar(out, x.String())
			}
		case bool:
			if keep {
				out = append(out, strconv.FormatBool(x))
			}
		}
		if depth == 0 {
			return out, nil
		}
	}
}
