package dlp

import (
	"fmt"
	"math"
	"regexp"
	"unicode"
	"unicode/utf8"
)

// Pattern is one detection rule.
type Pattern struct {
	// Name identifies the rule; a match is replaced by "[REDACTED:<Name>]"
	// (AIP §3.6). Required, unique, at most 128 bytes, no control characters
	// and no "]".
	Name string
	// Regex is a Go RE2 regular expression (package regexp). When it has a
	// named group whose name starts with "secret" (secret, secret2, ...), the
	// first such group that took part in the match is what gets redacted and
	// measured for entropy; otherwise the whole match is. An empty group named
	// secret0 that took part marks a name that describes or identifies a
	// credential (password_policy, api_key_id): the next secret group is
	// the value, and the match is dropped only when the value reads as a
	// setting or an identifier (words, numbers, a UUID, hex, a ULID, a
	// regular expression, an ARN).
	Regex string
	// Keywords, when set, gate the rule: it runs only on texts that contain at
	// least one keyword (ASCII case-insensitive) and is then evaluated over the
	// whole text. When empty, the scanner derives the literals every match
	// must contain from Regex itself, which is always safe; set Keywords only
	// to trade recall for speed on purpose.
	Keywords []string
	// MinEntropy, when above zero, drops matches whose redacted part has a
	// Shannon entropy below this many bits per byte (0 to 8).
	MinEntropy float64
	// Exclude, when set, is a Go RE2 regex: a match whose redacted part it
	// matches (unanchored; anchor it with ^...$ to test the whole part) is
	// dropped. It states what a rule must not take for a secret: templates
	// such as ${VAR} or {{ var }}, URLs, resource names, identifiers.
	Exclude string
}

// Options tunes a [Scanner]. A nil *Options means the defaults.
type Options struct {
	// DetectEncoding also finds secrets hidden as base64 (standard or URL
	// alphabet, padded or raw), hex, percent encoding and backslash escapes
	// (\uXXXX, \xXX, ...), and redacts the whole encoded span (AIP §3.6
	// detect_encoding).
	DetectEncoding bool
	// EncodingDepth is how many layers of encoding are peeled when
	// DetectEncoding is set: 1 (the default when 0) finds base64(secret);
	// 2 also finds base64(hex(secret)). At most 4.
	EncodingDepth int
	// MaxPatternLength bounds the length of each regex in bytes (AIP §8.2:
	// bound input, never reject valid patterns by heuristics). Default 4096,
	// at most 65536.
	MaxPatternLength int
	// ChunkSize is the largest text scanned in one piece. Longer inputs to
	// Redact, and everything written to a [Writer], are scanned in chunks of
	// ChunkSize bytes that overlap by Overlap bytes, so working memory stays
	// bounded; every byte is scanned. Default 1 MiB, at least 1024.
	ChunkSize int
	// Overlap is the longest secret guaranteed to be found when it straddles
	// a chunk boundary or Write calls. Default 16 KiB; at most ChunkSize/2.
	Overlap int
}

// Defaults for [Options].
const (
	DefaultMaxPatternLength = 4096
	DefaultChunkSize        = 1 << 20
	DefaultOverlap          = 16 << 10
	// MaxRanges is how many byte ranges a [Finding] keeps; Count stays exact.
	MaxRanges = 1024

	maxNameLen    = 128
	maxKeywordLen = 64
	maxDepth      = 4
)

func (o *Options) withDefaults() (Options, error) {
	var c Options
	if o != nil {
		c = *o
	}
	if c.EncodingDepth == 0 {
		c.EncodingDepth = 1
	}
	if c.MaxPatternLength == 0 {
		c.MaxPatternLength = DefaultMaxPatternLength
	}
	if c.ChunkSize == 0 {
		c.ChunkSize = DefaultChunkSize
	}
	if c.Overlap == 0 {
		c.Overlap = min(DefaultOverlap, c.ChunkSize/2)
	}
	switch {
	case c.EncodingDepth < 0 || c.EncodingDepth > maxDepth:
		return c, fmt.Errorf("%w: EncodingDepth %d not in 1..%d", ErrBadOptions, c.EncodingDepth, maxDepth)
	case c.MaxPatternLength < 0 || c.MaxPatternLength > 65536:
		return c, fmt.Errorf("%w: MaxPatternLength %d not in 1..65536", ErrBadOptions, c.MaxPatternLength)
	case c.ChunkSize < 1024:
		return c, fmt.Errorf("%w: ChunkSize %d below 1024", ErrBadOptions, c.ChunkSize)
	case c.Overlap < 0 || c.Overlap > c.ChunkSize/2:
		return c, fmt.Errorf("%w: Overlap %d not in 1..ChunkSize/2 (%d)", ErrBadOptions, c.Overlap, c.ChunkSize/2)
	}
	return c, nil
}

// Finding reports how often one rule fired. It never holds the secret.
type Finding struct {
	Rule   string  // the Pattern's Name
	Count  int     // number of redactions attributed to the rule
	Ranges []Range // byte ranges of the redacted spans in the input, the first MaxRanges
}

// Range is a half-open byte range [Start, End) of the input that was replaced.
type Range struct {
	Start, End int
	// Encoding is "" for a plain match, else how the secret was hidden:
	// "base64", "hex", "percent" or "escape".
	Encoding string
}

func validName(name string) error {
	if name == "" {
		return ErrEmptyName
	}
	if len(name) > maxNameLen || !utf8.ValidString(name) {
		return ErrBadName
	}
	for _, r := range name {
		if r == ']' || unicode.IsControl(r) {
			return ErrBadName
		}
	}
	return nil
}

func validEntropy(e float64) error {
	if math.IsNaN(e) || e < 0 || e > 8 {
		return ErrBadEntropy
	}
	return nil
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// settingGroup is the name of the empty group that marks a credential's
// name whose last word says the value describes or identifies the
// credential (password_policy, api_key_id: red team rtr); the value is the
// next secret group that took part in the match.
const settingGroup = "secret0"

// settingValue is what a setting about a credential, or its identifier,
// holds: words and numbers joined by - _ / + . : or a space
// (strong-passwords-only, bcrypt-sha256-v2, X-Api-Key, 86400s), a UUID or a
// run of hex digits (in words too: v2-<uuid>), a ULID, a regular expression
// (^[A-Z].{12,}$) or an ARN. Any other value under such a name is read as the
// credential it may be: password_id=Fake-Pa55word! and
// api_key_version: k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks reached the client
// (red team rtu).
var settingValue = regexp.MustCompile(`^(?:` + settingWord + `(?:[-_/+.: ]` + settingWord + `)*` +
	`|[0-9A-HJKMNP-TV-Z]{26}|` + arnValue +
	// A regular expression: anchored at either end, with a class, a
	// group, a repeat or an escape (a password may start with ^ or end
	// with $).
	`|\^.*` + regexPart + `.*|.*` + regexPart + `.*[^\\]\$)$`)

// arnValue is an Amazon Resource Name: arn, an AWS partition, a service,
// a region (or none), an account of 12 digits (or none, or "aws" for
// managed resources) and a resource of the characters IAM allows
// (password_id: arn:x:Fake-Pa55word! was dropped as one: red team rty).
const arnValue = `arn:aws(?:-[a-z]{2,10}){0,2}:[a-z0-9-]{1,64}:(?:[a-z]{2}(?:-[a-z]+){1,3}-[0-9])?:(?:[0-9]{12}|aws)?:[A-Za-z0-9_/.:+=,@*-]+`

// regexPart is what makes a value anchored with ^ or $ a regular
// expression: a character class, a group, a counted repeat, .* or .+, or
// an escape such as \d.
const regexPart = `(?:\[[^\]]+\]|\(\?|\{[0-9]+,?[0-9]*\}|\.[*+]|\\[dwsDWSb])`

// settingWord is a word of settingValue: a word of letters (lower,
// Capitalized, CamelCase or upper case) with a short number, a number with
// a unit, or hex digits.
const settingWord = `(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*[0-9]{0,4}|[A-Z]{1,8}[0-9]{0,4}|[0-9]{1,8}[a-z]{0,2}|[0-9a-fA-F]{4,64})`
