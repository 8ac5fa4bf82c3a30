package dlp_test

import (
	"strings"
	"testing"
)

// Red team rty: the rules look for a credential's syntax (quotes, an
// equals sign, an element's brackets), and text that writes it as HTML
// character references ({&quot;password&quot;:&quot;...&quot;},
// &lt;password&gt;, password&#61;...), as a property list
// (<key>Password</key><string>...</string>), with the value in brackets
// (log lines and toString: password=[...]) or in bash's ANSI-C quotes
// ($'...') passed with its secret.
func TestRedTeamRTY_ReferencesAndPrintedValues(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw, tok = "Fake-Pa55word!", "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"
	for _, secret := range []string{
		`{&quot;password&quot;:&quot;` + pw + `&quot;}`,
		`{&#34;api_key&#34;: &#34;` + tok + `&#34;}`,
		`{&#x22;client_secret&#x22;:&#x22;` + tok + `&#x22;}`,
		`{&amp;quot;password&amp;quot;:&amp;quot;` + pw + `&amp;quot;}`,
		`&lt;password&gt;` + pw + `&lt;/password&gt;`,
		`password&#61;` + pw,
		`password&equals;` + pw,
		`pass&#119;ord=` + pw,
		`p&#x61;ssword=` + pw,
		`password&#8203;=` + pw,
		"<key>Password</key>\n<string>" + pw + "</string>",
		"<key>APIKey</key><data>" + tok + "</data>",
		"password=[" + pw + "]",
		"password=(" + pw + ")",
		"{password=<" + pw + ">}",
		"password: {'" + pw + "'}",
		"token=[" + tok + "]",
		"api_key=(" + tok + ")",
		"PASSWORD=$'" + pw + "'",
		"API_KEY=$'" + tok + "'",
		`password=$"` + pw + `"`,
	} {
		out, f := s.Redact(secret)
		if len(f) == 0 || strings.Contains(out, pw) || strings.Contains(out, tok) {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
	for _, clean := range []string{
		"AT&amp;T R&amp;D &copy; 2026 &lt;b&gt;bold&lt;/b&gt; a &amp;&amp; b &#8212; &nbsp;",
		`{&quot;password&quot;:&quot;${DB_PASSWORD}&quot;}`,
		"if (a && b) { x &= mask; p = &v; }",
		"<key>PasswordMinLength</key><integer>12</integer>",
		"<key>Password</key><string>changeme</string>",
		"password=[REDACTED] password=[REDACTED:generic-password] password=[***] password=[] password=(none)",
		"password: [reset your password](https://example.com/reset)",
		"password_rules: [upper,lower,digit]",
		"password_pattern=[A-Za-z0-9!]{12}",
		"token=[a-zA-Z0-9_-]{16,}",
		"password=[${DB_PASSWORD}] password={props.password} password=(os.getenv(\"DB_PASSWORD\"))",
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
}
