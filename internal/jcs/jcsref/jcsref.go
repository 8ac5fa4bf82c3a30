// Package jcsref is the slow, obviously correct reference of the canonical
// form with the "as written" number rule (audit FORMAT.md, "Numbers"), for
// the tests of internal/jcs and audit to check the fast one against. It is
// imported by tests only.
package jcsref

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// Canon is gowebpki/jcs's RFC 8785 Transform, except that a number for
// which exact reports false (one a double does not hold) is kept as
// written. It finds the numbers with encoding/json's tokenizer, swaps each
// inexact one for a placeholder string no input can guess, lets Transform
// do everything else, and puts the numbers back. A number and a string are
// valid in the same places, so the swap changes nothing else Transform
// decides. exact is a parameter so that jcs's own tests can use this
// package without an import cycle.
func Canon(in []byte, exact func(string) bool) ([]byte, error) {
	type span struct{ start, end int }
	var inexact []span
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			break // invalid input is left to Transform to reject
		}
		if n, ok := tok.(json.Number); ok && !exact(string(n)) {
			end := int(d.InputOffset())
			inexact = append(inexact, span{end - len(n), end})
		}
	}
	if len(inexact) == 0 {
		return jcs.Transform(in)
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	placeholder := func(i int) []byte {
		return fmt.Appendf(nil, `"\u0000%x-%d\u0000"`, nonce, i)
	}
	var swapped []byte
	at := 0
	for i, s := range inexact {
		swapped = append(swapped, in[at:s.start]...)
		swapped = append(swapped, placeholder(i)...)
		at = s.end
	}
	swapped = append(swapped, in[at:]...)
	out, err := jcs.Transform(swapped)
	if err != nil {
		return nil, err
	}
	for i, s := range inexact {
		p := placeholder(i)
		if bytes.Count(out, p) != 1 {
			return nil, fmt.Errorf("jcsref: placeholder %d lost in %s", i, hex.EncodeToString(out))
		}
		out = bytes.Replace(out, p, in[s.start:s.end], 1)
	}
	return out, nil
}
