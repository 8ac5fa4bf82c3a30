package dlp_test

import (
	"strings"
	"testing"
)

// Red team rtc: a value in brackets padded with a space (a log's
// password=[ ... ], a toString's token=( ... )) was passed with its
// secret; a list, a comprehension or a placeholder padded so still passes.
func TestRedTeamRTC_BracketedPadding(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw, tok = "Fake-Pa55word!", "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"
	for _, secret := range []string{
		"password=[ " + pw + " ]",
		"password=( " + pw + ")",
		"{password=< " + pw + " >}",
		"token=[ " + tok + " ]",
		"password: [ '" + pw + "' ]",
		"2026-11-24 INFO login user=[ alice ] password=[ " + pw + " ] ok",
	} {
		out, f := s.Redact(secret)
		if len(f) == 0 || strings.Contains(out, pw) || strings.Contains(out, tok) {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
	for _, clean := range []string{
		"2026-11-24 [INFO] password=[ changed ] user=[ alice ]",
		"password=[ hidden ] token=[ none ] secret=[ masked ] password=[ *** ] password=[ ]",
		"password=[ p for p in pwlist if p ] token=[ a, b ] password=( None ) password=( input() )",
		"- [ ] password=[ REDACTED ] password=[ ${DB_PASSWORD} ] password=[ $PASSWORD ] password=[ %s ]",
		"token=[ a-zA-Z0-9_- ]{16,} password=[ args.password ] password=[ self.password ]",
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
}

// TestRedTeamRTC_PlistCDATA: a property list's value in a CDATA section
// (XML's other way to write text) was passed; an empty or templated one
// still passes.
func TestRedTeamRTC_PlistCDATA(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw = "Fake-Pa55word!"
	for _, secret := range []string{
		"<key>Password</key><string><![CDATA[" + pw + "]]></string>",
		"<key>AuthToken</key>\n\t<data><![CDATA[k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks]]></data>",
	} {
		if out, f := s.Redact(secret); len(f) == 0 || strings.Contains(out, pw) || strings.Contains(out, "k3Zp9Qm2") {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
	for _, clean := range []string{
		"<key>Password</key><string><![CDATA[]]></string>",
		"<key>Password</key><string><![CDATA[${WIFI_PASSWORD}]]></string>",
		"<key>TokenType</key><string><![CDATA[Bearer]]></string>",
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
}
