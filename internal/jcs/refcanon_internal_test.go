package jcs

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// asWritten is a Canonicalizer with audit's rule, which refCanon models.
func asWritten() *Canonicalizer {
	return &Canonicalizer{rule: Rule{Numbers: AsWritten, AllowFoldedNames: true}}
}

// transform is Transform for tests that read c.out and c.mem.
func (c *Canonicalizer) transform(in []byte) error {
	_, err := c.Transform(in)
	return err
}

// refCanon is the slow, obviously correct canonical form of audit FORMAT.md
// ("Numbers"), the rule {AsWritten, AllowFoldedNames}: jcs.Transform, except that a number a double does not hold
// exactly (ExactDouble false) is kept as written. It finds the
// numbers with encoding/json's tokenizer, swaps each inexact one for a
// placeholder string no input can guess, lets jcs.Transform do everything
// else, and puts the numbers back. A number and a string are valid in the
// same places, so the swap changes nothing else jcs.Transform decides.
func refCanon(in []byte) ([]byte, error) {
	type span struct{ start, end int }
	var inexact []span
	d := json.NewDecoder(bytes.NewReader(in))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			break // invalid input is left to jcs.Transform to reject
		}
		if n, ok := tok.(json.Number); ok && !ExactDouble(string(n)) {
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
			return nil, fmt.Errorf("refCanon: placeholder %d lost in %s", i, hex.EncodeToString(out))
		}
		out = bytes.Replace(out, p, in[s.start:s.end], 1)
	}
	return out, nil
}
