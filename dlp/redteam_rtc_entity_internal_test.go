package dlp

import "testing"

// TestRedTeamRTC_EntityAt: the spellings red team rtc added, read as a
// browser reads them.
func TestRedTeamRTC_EntityAt(t *testing.T) {
	for in, want := range map[string]struct {
		r rune
		w int
	}{
		"&#0000000034;": {'"', 13}, "&#x000000000022;": {'"', 16}, "&#999999999999;": {0xfffd, 15},
		"&#38;quot;": {'"', 10}, "&#x26;#34;": {'"', 10}, "&AMP;lt;": {'<', 8}, "&#38;": {'&', 5},
		"&quotx": {'"', 5}, "&lt": {'<', 3}, "&shy;": {0xad, 5}, "&ZeroWidthSpace;": {0x200b, 16},
		"&shy": {0, 0}, "&Shy;": {0, 0}, "&#38;&": {'&', 5}, "&amp;amp;": {'&', 9},
	} {
		if r, w := entityAt(in); r != want.r || w != want.w {
			t.Errorf("entityAt(%q) = %q, %d; want %q, %d", in, r, w, want.r, want.w)
		}
	}
}
