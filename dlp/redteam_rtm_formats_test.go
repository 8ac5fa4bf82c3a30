package dlp_test

import (
	"strings"
	"testing"
)

// Red team of the format rules' spellings (rtm): a password member named
// "pw" or "pass" in a tool's JSON text, an environment's DB_PASS=... as env
// or docker inspect print it, an XML password in CDATA or on its own line
// (a pretty-printed settings.xml), and an Oracle password in quotes
// (scott/"p@ss"@orcl, as sqlplus takes one with symbols) were not read.
func TestRedTeamRTM_FormatSpellings(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw = "Fake-Pa55word!"
	for _, leak := range []string{
		`{"user": "app", "pw": "` + pw + `"}`,
		`{"db_pass": "` + pw + `"}`,
		`{\"pass\": \"` + pw + `\"}`,
		"DB_PASS=" + pw + "\nLOG_LEVEL=info",
		"export SMTP_PW=" + pw,
		"<password><![CDATA[" + pw + "]]></password>",
		"<password>\r\n    " + pw + "\r\n  </password>",
		`sqlplus scott/"` + pw + `"@orcl`,
		`jdbc:oracle:thin:app/"` + pw + `"@db.example.internal:1521/ORCL`,
	} {
		out, f := s.Redact(leak)
		if len(f) == 0 || strings.Contains(out, pw) {
			t.Errorf("%q: reached the output: %q", leak, out)
		}
	}
	for _, clean := range []string{
		`{"pass": 12, "fail": 0}`,
		`{"pass": "3/5"}`,
		`{"status": "pass", "bypass": "cache-v2"}`,
		`{"compass": "N-42"}`,
		"ALLOW_PASS_THROUGH=enabled-by-default",
		"BYPASS_PROXY=internal.example.com",
		"DB_PASS=${DB_PASSWORD}",
		"DB_PASS_FILE=/run/secrets/db",
		"<password><![CDATA[${env.NEXUS_PASSWORD}]]></password>",
		"<password>\n</password>",
		`sqlplus scott/"${ORACLE_PASSWORD}"@orcl`,
		`if x == "pass": return`,
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%q: redacted (%v): %q", clean, f, out)
		}
	}
}
