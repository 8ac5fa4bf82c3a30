package jcs

import "github.com/gatehouse-dev/gatehouse/internal/jcs/jcsref"

// asWritten is a Canonicalizer with audit's rule, which refCanon models.
func asWritten() *Canonicalizer {
	return &Canonicalizer{rule: Rule{Numbers: AsWritten, AllowFoldedNames: true}}
}

// transform is Transform for tests that read c.out and c.mem.
func (c *Canonicalizer) transform(in []byte) error {
	_, err := c.Transform(in)
	return err
}

// refCanon is the slow, obviously correct canonical form of audit
// FORMAT.md ("Numbers"), the rule {AsWritten, AllowFoldedNames}: see
// jcsref.Canon.
func refCanon(in []byte) ([]byte, error) { return jcsref.Canon(in, ExactDouble) }
