// Package normalize turns tool names, method names and file paths into the
// canonical form that policy comparisons use, so that no Unicode trick makes
// two names that look the same compare different, or a hidden path look
// harmless.
//
// [Name] implements AIP v1alpha1 §4.1 (NFKC, lower case, trim, drop
// non-printable characters), made stricter in three ways:
//
//   - Full Unicode case folding ([golang.org/x/text/cases.Fold]) instead of
//     simple lower-casing, so "STRASSE", "straße" and "strasse" are one name,
//     and "ǅ", "Ǆ" and "ǆ" are one name. Folding can only merge names that a
//     human already reads as the same word; it never splits one.
//   - Every rune that is not printable is removed: controls (Cc), format
//     characters (Cf: zero-width space/joiners, word joiner, BOM, bidi
//     embeddings, overrides and isolates, tag characters), private use,
//     unassigned code points, separators other than the ASCII space, plus
//     the default-ignorable graphic runes that render as nothing (variation
//     selectors, combining grapheme joiner, Hangul fillers).
//   - White space is trimmed after removal, and the steps repeat until the
//     result no longer changes, so Name(Name(x)) == Name(x) for every x.
//
// Invalid UTF-8 bytes are removed like other non-printable input.
//
// [Path] is the normalization the protected-path check uses: percent
// decoding, the same Unicode clean-up, case folding, "~" and "$HOME"
// expansion, and lexical resolution of ".", ".." and duplicate slashes.
// [PathEnv.Kernel] and [PathEnv.Resolve] walk a path as the Linux kernel
// does, following /proc/<pid>/root and /proc/self/cwd and refusing the
// aliases whose target is unknown (/proc/.../fd, /dev/fd); [PathEnv.Scan]
// reads "file://host/path" by its path, keeps quoted wildcards literal
// ([QuoteWildcards]), and also reads text with JSON escapes of ASCII
// characters decoded ([UnescapeJSONASCII]).
//
// # Security
//
// NFKC does not map look-alike letters of other scripts: Cyrillic "е"
// (U+0435) stays Cyrillic, so "dеlеtе_filе" does not equal "delete_file".
// That is the safe direction for an allowlist (the look-alike is simply not
// allowed), and it is why policies should allow rather than deny.
//
// Case folding of paths makes the protected-path check case-insensitive:
// "~/.SSH" is caught on macOS and Windows, where it names the same directory.
// On case-sensitive file systems this can block a path that only differs in
// case from a protected one; gatehouse prefers that to a miss.
//
// # Concurrency
//
// Every function in this package is safe for concurrent use.
//
// # Usage
//
//	normalize.Name("ｒｅａｄ\u200b_ﬁle ") // "read_file"
package normalize
