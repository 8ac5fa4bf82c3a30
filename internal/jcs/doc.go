// Package jcs is gatehouse's one canonical JSON form: RFC 8785 (JSON
// Canonicalization Scheme) with an explicit number [Rule] chosen by each
// caller, and objects refused whose member names are equal under Unicode
// case folding. Everything that decides whether two calls are the same, or
// what a human approved, canonicalizes through it: approval's SEP-2672
// action hash, consent's ACP action hash and proofs, the elicitation state
// and the loop fingerprint; the audit log uses it with the rule that keeps
// what was received.
//
// Two APIs give the same bytes: [Canonicalizer.Transform] (and [Transform])
// for JSON text, and [AppendValue] for decoded Go values (map[string]any
// with json.Number, as the policy package decodes arguments).
//
// # Security
//
// A canonical form is an agreement between readers. Where readers of the
// same bytes could disagree on the value, there is no canonical form and the
// input is refused: duplicate member names, names equal under case folding
// (encoding/json matches them case-insensitively and takes the last,
// go-sdk's handler decoding matches exactly, JavaScript takes the last
// exact match; [ErrFoldedNames]), invalid UTF-8, lone surrogates, and under
// [Exact] numbers an IEEE-754 double cannot hold ([ErrInexactNumber]).
// Nesting is bounded by [MaxDepth] so work stays linear in the input, and
// the case-folding check hashes names with a per-process random seed, so no
// input makes it quadratic. Errors never quote values; they may quote member
// names, cut to 40 bytes.
//
// What the zero Rule accepts, github.com/gowebpki/jcs accepts too and
// writes byte for byte alike; a fuzz target checks this.
//
// # Concurrency
//
// A [Canonicalizer] is not safe for concurrent use; keep one per goroutine.
// [Transform], [AppendValue] and [ExactDouble] are safe for concurrent use.
package jcs
