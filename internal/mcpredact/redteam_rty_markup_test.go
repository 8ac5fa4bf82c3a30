package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rty: a tool's text output that writes a credential's syntax as
// markup or as a program prints it reached the client through
// mcpredact.Result: JSON in an HTML attribute, its quotes written as
// character references ({&quot;password&quot;:&quot;...&quot;}, as a
// fetched page holds it), an escaped XML dump, a macOS property list
// (<key>Password</key><string>...</string>), a value in brackets as log
// lines and toString methods print it (password=[...]), and bash's
// ANSI-C quoting (declare -x PASSWORD=$'...').
func TestRedTeamRTY_MarkupAndPrintedValues(t *testing.T) {
	pw, tok := rtmPassword, rtmToken
	for name, doc := range map[string]string{
		"html &quot;":       `<div data-config="{&quot;password&quot;:&quot;` + pw + `&quot;,&quot;host&quot;:&quot;db.internal&quot;}"></div>`,
		"html &#34;":        `<div data-config="{&#34;password&#34;:&#34;` + pw + `&#34;}">db.internal</div>`,
		"html &#x22;":       `<div data-cfg='{&#x22;api_key&#x22;:&#x22;` + tok + `&#x22;}'>db.internal</div>`,
		"html twice":        `<pre>{&amp;quot;api_key&amp;quot;: &amp;quot;` + tok + `&amp;quot;} db.internal</pre>`,
		"html no semicolon": `<p>{&#34password&#34:&#34` + pw + `&#34} db.internal</p>`,
		"escaped xml":       "&lt;db&gt;&lt;host&gt;db.internal&lt;/host&gt;&lt;password&gt;" + pw + "&lt;/password&gt;&lt;/db&gt;",
		"query &#61;":       `<a href="/login?user=admin&amp;password&#61;` + pw + `">db.internal</a>`,
		"entity in name":    `{"p&#97;ssword": "` + pw + `", "host": "db.internal"}`,
		"hidden in entity":  `pass&#8203;word&#61;` + pw + ` host=db.internal`,
		"plist":             "<dict>\n\t<key>Host</key>\n\t<string>db.internal</string>\n\t<key>Password</key>\n\t<string>" + pw + "</string>\n</dict>",
		"plist api key":     "<key>APIKey</key><string>" + tok + "</string><key>Host</key><string>db.internal</string>",
		"log [..]":          "2026-11-24 INFO login password=[" + pw + "] host=db.internal",
		"log (..)":          "INFO connect(password=(" + pw + "), host=db.internal)",
		"log <..>":          "INFO {password=<" + pw + ">, host=db.internal}",
		"toString":          "User(name=admin, password=[" + pw + "], host=db.internal)",
		"log token [..]":    "INFO token=[" + tok + "] host=db.internal",
		"log api_key {..}":  "INFO api_key={" + tok + "} host=db.internal",
		"jsx":               `<Login password={"` + pw + `"} host="db.internal" />`,
		"python ['..']":     "conn(password=['" + pw + "'], host='db.internal')",
		"ansi-c":            "declare -x PASSWORD=$'" + pw + "'\ndeclare -x HOST=db.internal",
		"ansi-c token":      "export API_KEY=$'" + tok + "' HOST=db.internal",
		"locale quote":      `password=$"` + pw + `" host=db.internal`,
	} {
		if got, leak := rtrLeaks(t, doc); leak {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
}

// Near misses: markup, brackets and shell quoting that hold no secret.
func TestRedTeamRTY_MarkupNearMisses(t *testing.T) {
	for _, doc := range []string{
		`<div data-config="{&quot;password&quot;:&quot;${DB_PASSWORD}&quot;}">AT&amp;T R&D &copy; 2026 a &lt; b &amp;&amp; c</div>`,
		`<p>Tom &amp; Jerry &#8212; &quot;quoted&quot; &#x27;single&#x27; &nbsp; &unknown; &#; &#x; &;</p>`,
		"if (a && b) { x &= mask; y = &v; } // R&D, AT&T, Q&A",
		"<key>PasswordMinLength</key><integer>12</integer><key>TokenType</key><string>Bearer</string>",
		"<key>Password</key><string>changeme</string><key>SecretName</key><string>db-credentials-v2</string>",
		"INFO login password=[REDACTED] user=admin",
		"INFO login password=[***] token=[] secret=(none) api_key=<nil>",
		"{Password:<nil> Token:}",
		"password: [reset your password](https://example.com/reset)",
		"password_rules: [upper,lower,digit]\npassword_length: [12,128]",
		"password={password} apiKey={process.env.API_KEY} password=[${DB_PASSWORD}]",
		"password=(os.getenv(\"DB_PASSWORD\")) password=(input()) password=[DB_PASSWORD]",
		"password_pattern=[A-Za-z0-9!]{12}",
		"token=[a-zA-Z0-9_-]{16,}",
		"secret=(SecretManagerSecretIdentifier) token={TokenizerConfigurationSettings}",
		"password=<%= ENV['DB_PASSWORD'] %>",
		"export PS1=$'\\u@\\h:\\w\\$ '",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\n->\n%q", n, doc, got)
		}
	}
}
