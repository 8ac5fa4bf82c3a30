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
// encoding (form-encoded + included) or backslash escapes are found too, and
// the whole encoded span is replaced with the marker of the rule that fired
// inside it.
//
// [Scanner.RedactParts] scans texts that a reader sees as one (the content
// items of an MCP result) joined, so a secret split across them is found and
// each part loses its share.
//
// # Normalized scanning
//
// A secret with a zero-width space, soft hyphen, word joiner, BOM, bidi
// control, variation selector, tag character, ASCII control other than
// whitespace (NUL, DEL, ...) or terminal escape sequence (the colour codes
// grep --color puts around what it matched) inside it, or written in
// fullwidth or other compatibility forms (NFKC), is found: text that holds
// such runes is scanned a second time as a normalized view (invisible runes
// removed, the rest in NFKC), around each such rune, and every match is
// mapped back to the original bytes, which are redacted, invisible runes
// included. So is one whose syntax is written as HTML character references
// (JSON in an attribute, {&quot;password&quot;:&quot;...&quot;}, an
// escaped XML dump, password&#61;..., references escaped again as
// &amp;quot;): the view holds the rune each numeric or syntax reference
// stands for. Clean ASCII text (whitespace controls allowed) pays one
// word-at-a-time pass for this, which decodes only an '&' that a '#' or a
// letter follows.
//
// # How it is fast
//
// Every rule's regex is analysed with regexp/syntax for a set of literals one
// of which every match must contain, and at which offsets from the start of
// the match they can occur. One Aho-Corasick automaton over all literals
// (ASCII case-insensitive; exact-case literals are checked on each hit)
// reads the text once; from 129 bytes on (for the built-in pack) in four
// interleaved streams over four parts of the text, each starting one longest
// literal early, so that the CPU overlaps their table lookups and every hit
// is still reported once, in order. A rule whose literals do not occur costs nothing; when
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
//
// What is scanned, and to which depth:
//
//   - Every byte of the text, as it is, with every rule.
//   - The normalized view (see above) within 2 KiB of each invisible or
//     compatibility rune, and of the whole text when a match reaches that
//     window's edge.
//   - With DetectEncoding: base64 (standard or URL alphabet) and hex runs of
//     at least 16 characters whose decoded bytes hold at least 8 printable
//     bytes in a row, percent-encoded and form-encoded tokens, backslash
//     escapes; Options.EncodingDepth layers deep (default 1, at most 4).
//     Each decoded layer is normalized and scanned like the text.
//   - In RedactJSON, every string value and object key (decoded, so escapes
//     cannot split a secret) and every number.
//   - In RedactParts, the concatenation of the parts as well as each part.
//
// The MCP layer (internal/mcpredact, used by the root package) walks every
// string of a result or server-to-client message at any depth, _meta
// included, decodes base64 image, audio and blob payloads and scans the
// decoded bytes, and joins the texts of one content array, the string
// elements of any array, and the values under one key across the objects of
// an array. An object's string members whose names hold a credential word
// (pass, pwd, secret, key, token, auth, cred, session, cookie, private, sig),
// the strings of an array so named (a header map: {"Authorization":
// ["Bearer ..."]}), the value of a {"name": ..., "value": ...} pair so
// named, and every member of a JSON Web Key are also scanned with their names, as the JSON they are
// ({"password": "..."}), so the rules that need the name see it. A value
// left unredacted is scanned again under the canonical name ("password" or
// "secret") of what its member's name says it is, read as words whatever
// the case, separators, NFKC form or Cyrillic and Greek look-alikes (pw,
// Pass-Word, Passwort, ｐａｓｓｗｏｒｄ, privKey, x-api-key, signing_key,
// Authorization), with the generic rules' entropy floors and exclusions: so
// are numbers, value-like members of an object so named ({"password":
// {"value": ...}}), an array of characters, the value of a name/value pair
// in other spellings (Name/Value, Key/Value, k/v, ParameterKey/
// ParameterValue), environment strings (["DB_PASS=..."]) and a flag's value
// in an argument array (["--pass", "..."]). "key" alone, a key of another
// kind (sort, public, cache, idempotency, GPG) and a pagination token
// (NextToken) are not read as secrets. A JSON document inside a string
// (a tool's text) is read by the text rules only.
//
// What is not found: a secret split by a line break (a PEM private key is
// the exception: it is redacted from its BEGIN line to its END line whatever
// separates its lines), across a [Writer.Flush], across two messages (the
// root package keeps the end of each stream of log or progress messages, a
// stream per call, logger or progress token, and redacts the second
// message's share, but the first part has left), or
// across two JSON strings that are not elements of one array; text reversed,
// lower-cased, compressed (gzip, a PNG zTXt chunk) or encrypted; encodings other than the ones above
// (HTML entities, quoted-printable, base32) and deeper than EncodingDepth;
// look-alike letters from other scripts (Cyrillic "А" for Latin "A": NFKC
// does not map them, except in a member's name, above); formats the rules do not know. Built-in rules are
// written from documented token formats; generic rules (password=...,
// api_key: "...", password: value) use entropy floors and Exclude lists
// (templates such as ${VAR} and {{ var }}, URLs, paths, "/"-separated
// resource names, identifiers) and will miss weak passwords and flag some
// random-looking values assigned to secret-like names (a hex digest in a
// variable named fooSecretChecksum is redacted). A password of letters only
// is redacted when it is written NAME=value, and not when it is quoted, in
// an XML value or after a space ("changeme"). A Kubernetes Secret's data
// without its kind in the same text is recognized only as kubectl prints
// it (apiVersion first, every value padded base64 of at least 8 bytes),
// unless its object's lines near the data key name another kind (a
// ConfigMap of base64 values);
// stringData is recognized with or without its kind. A Secret's YAML data
// block is every indented line after its data or stringData key, through
// blank lines and comments (quoted keys, block scalars) and through lines
// of a command's stderr at column 0 between its entries (a klog header, a
// date or time, a log level: kubectl's warnings), and its flow
// style ("data: {k: v}"); written kind first, at most 16 lines may come
// between its kind and its data key. A text longer than
// ChunkSize is cut between rounds before a rule's whole match (a Secret's
// "kind: Secret ... data:" lines go with its entries), and the root
// package's streams of messages keep a data block's header for as long as
// the block goes on (and a Secret's kind line until its data key), and
// read each boundary between two messages both as written and, where
// neither side is a line break, as if it were one (a command's output
// logged a line per message without its newline), and in that reading,
// where a secret runs to the very end of a message, as written too (a
// line longer than a reader's buffer, sent in pieces by ReadLine). A
// server remembers at most 1024 streams, a session at most a quarter of
// them; a stream with a secret open at its end is forgotten last: a
// flood of sessions whose streams all hold one can still push it out,
// and the rest of its secret goes out. A single data block longer than ChunkSize (a
// Kubernetes object is at most 1 MiB) is redacted only up to the end of
// the round it starts in, and in JSON (kubectl -o json) streamed in
// messages, only up to the kept end of the stream (4 KiB).
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
