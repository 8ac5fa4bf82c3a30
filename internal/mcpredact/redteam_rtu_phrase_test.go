package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtu: a password of words, or with a space in it, under a
// password's name reached the client from every reading that knows where
// the value ends (a JSON member, a YAML scalar, a name/value pair, an INI
// or properties line): the rules' quoted value ends at white space (rtr
// left it to the text rules). Such a value is now scanned whole.
func TestRedTeamRTU_PasswordWithSpaces(t *testing.T) {
	const phrase, spaced = "correct horse battery staple", "Fake Pa55word!"
	for name, doc := range map[string]string{
		"json":           `{"password": "` + phrase + `", "host": "db.internal"}`,
		"json spaced":    `{"db": {"pw": "` + spaced + `"}, "host": "db.internal"}`,
		"json pair":      `{"env": [{"name": "DB_PASS", "value": "` + phrase + `"}], "host": "db.internal"}`,
		"yaml":           "db:\n  password: " + phrase + "\n  host: db.internal\n",
		"yaml quoted":    "db:\n  Passwort: '" + spaced + "'\n  host: db.internal\n",
		"yaml env":       "env:\n  - name: DB_PASS\n    value: " + phrase + "\nhost: db.internal\n",
		"yaml block":     "db:\n  passphrase: |\n    " + phrase + "\n  host: db.internal\n",
		"ini":            "[db]\nhost = db.internal\npassword = " + phrase + "\n",
		"properties":     "db.host=db.internal\ndb.pw=" + spaced + "\n",
		"toml":           "[db]\nhost = \"db.internal\"\npw = \"" + spaced + "\"\n",
		"csv":            "user,password\nadmin," + phrase + "\nhost,db.internal\n",
		"two spaces":     `{"password": "correct  horse  battery", "host": "db.internal"}`,
		"json in string": `{"body": "{\"password\": \"` + phrase + `\"}", "host": "db.internal"}`,
	} {
		got, n := rtqText(t, doc)
		if strings.Contains(got, "horse") || strings.Contains(got, "Pa55word!") || n == 0 {
			t.Errorf("%s: a secret reached the client (%d findings): %q", name, n, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	// Near misses: prose in a password's place, words under names that
	// are no password's, a passphrase's setting.
	for _, doc := range []string{
		`{"password": "see the vault", "host": "db.internal"}`,
		"db:\n  password: not set\n  host: db.internal\n",
		"[db]\npassword = stored in 1Password\nhost = db.internal\n",
		"env:\n  - name: DB_PASS\n    value: ask the platform team\n",
		`{"password": "<redacted>", "pw": "N/A"}`,
		`{"description": "correct horse battery staple", "title": "Fake Pa55word"}`,
		`{"password_policy": "four words or more", "passwordHint": "your first pet"}`,
		"db:\n  password: |\n    rotated by the operator,\n    see the runbook\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\n->\n%q", n, doc, got)
		}
	}
}
