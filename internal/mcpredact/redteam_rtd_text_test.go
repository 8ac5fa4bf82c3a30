package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtd: secrets in text the text rules did not read: a password
// in a bracket never closed (as a logger prints it, or cut), an XML value
// with spaces, a comment between a property list's key and its value, an
// attribute named pass; and help text in a password's place was redacted.
func TestRedTeamRTD_TextSecrets(t *testing.T) {
	pw := rtmPassword
	for name, doc := range map[string]string{
		"bracket open":        "login ok password=[" + pw + " user=bob",
		"bracket open end":    "login password=[" + pw,
		"paren open line":     "db{user=app, password=(" + pw + "\nnext line",
		"angle open":          "{password=<" + pw + " ",
		"xml words":           "<password>correct horse battery staple</password>",
		"xml words padded":    "<dbPassword>\n  correct horse battery 7staple\n</dbPassword>",
		"xml attr words":      `<db password="correct horse battery staple"/>`,
		"xml attr later":      `<db user="app" host="db.internal" password='Fake Pa55 word'/>`,
		"plist comment":       "<key>password</key><!-- x --><string>" + pw + "</string>",
		"plist comment lines": "<key>Password</key>\n\t<!-- wifi -->\n\t<string>" + pw + "</string>",
		"plist comment cdata": "<key>password</key><!-- x --><string><![CDATA[" + pw + "]]></string>",
		"element comment":     "<password><!-- set by ops -->" + pw + "</password>",
		"pass attribute":      `<db host="db.internal" pass="` + pw + `"/>`,
		"pass attribute sq":   `<db pass='` + pw + `'/>`,
		"db_pw attribute":     `<conn db_pw="` + pw + `"/>`,
		"pass attr words":     `<db user="app" pass="Fake Pa55 word" host="x"/>`,
		"paren secret":        "Password: (" + pw + ")",
	} {
		got, n := rtqText(t, doc)
		if n == 0 || strings.Contains(got, pw) || strings.Contains(got, "horse") || strings.Contains(got, "Pa55") {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		}
	}
}

// Near misses: help text, placeholders, test reports, HTML forms and
// ordinary uses of "pass" pass unchanged.
func TestRedTeamRTD_TextSecretsNearMisses(t *testing.T) {
	for _, doc := range []string{
		"Password: (min. 8 chars)",
		"Password: (at least 12 characters, one digit)",
		"password: (hidden)",
		"password = [masked]",
		"Password: ********",
		"password: <redacted>",
		"password=[A-Za-z0-9!]{12}",
		"password=[see docs](https://example.com/docs)",
		"password=[8-64 chars] user=bob",
		"pass the salt",
		"pass: true",
		"pass: 3",
		`{"pass": 12, "fail": 0}`,
		`<testsuite name="unit" tests="12" pass="12" fail="0" time="0.31"/>`,
		`<run pass="3/5" bypass="cache-v2"/>`,
		`<db pass="${DB_PASS}"/>`,
		`<input type="password" name="password" placeholder="at least 8 characters">`,
		`<label for="password">Password (min. 8 chars)</label>`,
		"<password>see the vault</password>",
		"<key>Password</key><!-- wifi --><string>changeme</string>",
		"<token_type>Bearer</token_type>",
		"if pass == \"x\" {\n\treturn compass\n}",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings): %q -> %q", n, doc, got)
		}
	}
}
