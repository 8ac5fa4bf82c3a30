// Package runes holds the one definition of an invisible rune, shared by
// name normalization (which removes them) and approval display texts (which
// show them as escapes).
package runes

import (
	"unicode"
	"unicode/utf8"
)

// Invisible reports whether r is not printable (controls, format
// characters, private use, unassigned, surrogates, separators other than
// U+0020, U+FFFD standing for invalid UTF-8) or is a default-ignorable rune
// that renders as nothing (variation selectors, combining grapheme joiner,
// Hangul fillers).
func Invisible(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	if r == utf8.RuneError || !unicode.IsPrint(r) {
		return true
	}
	return unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
