package dlp_test

// Red team rtc: character references spelled as a browser still reads
// them, past the view's table and digit limits.

import (
	"strings"
	"testing"
)

// TestRedTeamRTC_ReferenceSpellings: leading zeros past eight digits, an
// '&' escaped again as &#38; &#x26; or &AMP;, the legacy names a browser
// reads without ';', and the names of invisible runes each hid a secret.
func TestRedTeamRTC_ReferenceSpellings(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw, key = "Fake-Pa55word!", "AKIAZ7Q3MV2KXH4PLW6N"
	for _, secret := range []string{
		`{&#0000000034;password&#0000000034;:&#0000000034;` + pw + `&#0000000034;}`,
		`{&#x0000000022;password&#x0000000022;:&#x0000000022;` + pw + `&#x0000000022;}`,
		`password&#00000000061;` + pw,
		`{&#38;quot;password&#38;quot;:&#38;quot;` + pw + `&#38;quot;}`,
		`{&#x26;quot;password&#x26;quot;:&#x26;quot;` + pw + `&#x26;quot;}`,
		`{&AMP;quot;password&AMP;quot;:&AMP;quot;` + pw + `&AMP;quot;}`,
		`{&amp;amp;quot;password&amp;amp;quot;:&amp;amp;quot;` + pw + `&amp;amp;quot;}`,
		`{&quotpassword&quot:&quot` + pw + `&quot}`,
		"AKIA&shy;Z7Q3MV2KXH4PLW6N",
		"AKIA&ZeroWidthSpace;Z7Q3MV2KXH4PLW6N",
		"AKIA&zwj;Z7Q3MV2KXH4PLW6N",
		"AKIA&zwnj;Z7Q3MV2KXH4PLW6N",
		"AKIA&NoBreak;Z7Q3MV2KXH4PLW6N",
		"AKIA&lrm;Z7Q3MV2KXH4PLW6N",
		"AKIA&#173;Z7Q3MV2KXH4PLW6N",
		"AKIA&#X200B;Z7Q3MV2KXH4PLW6N",
		"&#65;KIAZ7Q3MV2KXH4PLW6N",
		"AKIA\u200b&#90;7Q3MV2KXH4PLW6N",
		"AKIA&amp;#8203;Z7Q3MV2KXH4PLW6N",
		"AKIA&#8203Z7Q3MV2KXH4PLW6N",
		`password&colon; ` + pw,
		"AKIA&InvisibleTimes;Z7Q3MV2KXH4PLW6N",
		"AKIA&it;Z7Q3MV2KXH4PLW6N",
	} {
		out, f := s.Redact(secret)
		if len(f) == 0 || strings.Contains(out, pw) || strings.Contains(out, "Z7Q3MV2KXH4PLW6N") {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
}

// TestRedTeamRTC_ReferenceNearMisses: text that only looks like those
// spellings passes unchanged.
func TestRedTeamRTC_ReferenceNearMisses(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, clean := range []string{
		"AT&amp;T &#38; R&AMP;D &#x26;&#x26; &quotation &ltx &gtz &it &af &shy &zwj",
		"AKIA&Shy;Z7Q3MV2KXH4PLW6N",
		"AKIA&shyZ7Q3MV2KXH4PLW6N",
		"AKIA&#99999999999;Z7Q3MV2KXH4PLW6N",
		"AKIA&#xD800;Z7Q3MV2KXH4PLW6N",
		"AKIA&#0;Z7Q3MV2KXH4PLW6N",
		`{&quot;password&quot;:&quot;${DB_PASSWORD}&quot;}`,
		`{&#0000034;password&#0000034;:&#0000034;{{ .Values.password }}&#0000034;}`,
		"https://example.com/?a=1&lt=2&gt=3&quot=4&it=5",
		"&" + strings.Repeat("0", 200) + ";" + strings.Repeat("&#0000", 100),
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
}
