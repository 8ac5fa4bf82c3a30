package runes

import "testing"

func TestInvisible(t *testing.T) {
	for _, r := range []rune{0, '\n', '\t', 0x7f, 0x85, 0xad, 0x200b, 0x200d, 0x2028, 0x2029, 0x202e, 0x2066, 0x2069, 0x2060, 0xfeff, 0xfe0f, 0x115f, 0x3164, 0x034f, 0x00a0, 0xe000, 0xe0041, 0xfffd, 0x10ffff} {
		if !Invisible(r) {
			t.Errorf("U+%04X reads as visible", r)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 'é', 'ß', '東', '👍', 0x0301, 0x00a1} {
		if Invisible(r) {
			t.Errorf("U+%04X reads as invisible", r)
		}
	}
}
