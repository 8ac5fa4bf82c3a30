// Package dlp finds secrets in text and JSON and replaces them with
// "[REDACTED:<rule name>]" (AIP §3.6): tool results, stderr, resources and
// prompts on their way back to an agent, and arguments before they are
// logged.
//
// A [Scanner] is compiled once from [Pattern] values (policy patterns, the
// built-in pack from [Builtin], or both) and used for [Scanner.Redact] (text),
// [Scanner.RedactJSON] (any JSON document: keys and string values are decoded,
// scanned and re-encoded) and [Scanner.NewWriter] (a stream). Each call
// returns one [Finding] per rule that fired, with the count and the byte
// ranges replaced: what AIP §6.4 DLP events need.
//
// With [Options].DetectEncoding, secrets hidden as base64, hex, percent
// encoding or backslash escapes are found too, and the whole encoded span is
// replaced with the marker of the rule that fired inside it.
//
// # How it is fast
//
// Every rule's regex is analysed with regexp/syntax for a set of literals one
// of which every match must contain, and at which offsets from the start of
// the match they can occur. One Aho-Corasick automaton over all literals
// (ASCII case-insensitive; exact-case literals are checked on each hit)
// reads the text once. A rule whose literals do not occur costs nothing; when
// one does, the rule's regex is tried anchored at the few starts the offsets
// allow, or over a window around the hit, or (when the regex has no bounded
// length) over the whole text. Rules with no derivable literal run over every
// text. Each of these strategies finds exactly what running the regex over
// the whole text finds; a randomized test checks that against a naive
// reference scanner.
//
// # Overlaps
//
// Matches are ordered by start, then longer first, then earlier rule. The
// leftmost wins; a match overlapping it is merged into it (its bytes are
// redacted too, under the first match's name, counted once). So no byte of any
// match survives and counts do not double.
//
// # Security
//
// The threat is a tool result, error text or log line that carries a
// credential back to the model or into a log. The invariants:
//
//   - Findings never hold secret material: rule names, counts, byte offsets.
//   - Regexes are Go RE2: linear time, whatever the input (AIP §8.2). Pattern
//     length is bounded (Options.MaxPatternLength); valid patterns are never
//     rejected by heuristics; a pattern that can match the empty string is.
//   - No input is skipped: texts longer than Options.ChunkSize are scanned in
//     chunks that overlap by Options.Overlap bytes (the longest secret caught
//     across a chunk or Write boundary; default 16 KiB), in bounded memory.
//   - RedactJSON fails closed on invalid JSON (no output), and otherwise
//     always returns valid JSON.
//   - Encoded detection peels Options.EncodingDepth layers (default 1);
//     decoded base64 and hex are scanned when they hold at least 8 printable
//     bytes in a row (every secret in the pack is printable text).
//
// Limits worth knowing: a secret split across two JSON strings, or across a
// [Writer.Flush], is not found; built-in rules are written from documented
// token formats and will miss formats they do not know; generic rules
// (password=..., api_key: "...") use entropy floors and will miss weak
// passwords and flag some random-looking values.
//
// # Concurrency
//
// A [Scanner] is immutable after [New] and safe for concurrent use by any
// number of goroutines. A [Writer] is not safe for concurrent use.
//
// # Usage
//
//	s, err := dlp.New(append(dlp.Builtin(), policyPatterns...), &dlp.Options{DetectEncoding: true})
//	if err != nil {
//		return err // names the bad rule
//	}
//	clean, findings := s.Redact(toolOutput)
//	for _, f := range findings {
//		log.Info("DLP_TRIGGERED", "dlp_rule", f.Rule, "dlp_match_count", f.Count)
//	}
package dlp
