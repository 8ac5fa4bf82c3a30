package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtr: configuration sent as text that no parser of the walk read
// (properties, INI, TOML, YAML indented with a tab or after a line of
// prose that is no YAML) or a value wrapped over lines named a credential
// in a spelling no text rule lists, and the value reached the client.
func TestRedTeamRTR_ConfigText(t *testing.T) {
	for name, doc := range map[string]string{
		"properties":       "db.host=db.internal\ndb.pw=" + rtmPassword + "\n",
		"ini":              "[db]\nhost = db.internal\npw = " + rtmPassword + "\n",
		"toml":             "[db]\nhost = \"db.internal\"\npw = \"" + rtmPassword + "\"\n",
		"toml single":      "[db]\nhost = 'db.internal'\nPasswort = '" + rtmPassword + "'\n",
		"dotenv export":    "export HOST=db.internal\nexport STRIPE_SECRET=" + rtmToken + "\n",
		"comment after":    "host: db.internal\nprivKey: " + rtmToken + " # rotated\n",
		"yaml with a tab":  "db:\n\thost: db.internal\n\tpw: " + rtmPassword + "\n",
		"prose before":     "Note: the pod is: running\nenv:\n  - name: DB_PASS\n    value: " + rtmPassword + "\n  - {name: HOST, value: db.internal}\n",
		"prose after":      "env:\n  - name: DB_PASS\n    value: " + rtmPassword + "\n  - {name: HOST, value: db.internal}\nDone: applied: 1\n",
		"wrapped literal":  "host: db.internal\ndb:\n  password: |\n    Fake-\n    Pa55word!\n",
		"dup in flow":      "host: db.internal\nenv:\n  - {name: DB_PASS, name: HOST, value: " + rtmPassword + "}\n",
		"dup in block map": "host: db.internal\nenv:\n  - name: HOST\n    name: DB_PASS\n    value: " + rtmPassword + "\n",
	} {
		got, n := rtqText(t, doc)
		if strings.Contains(got, "Pa55word!") || strings.Contains(got, rtmToken) || n == 0 {
			t.Errorf("%s: a secret reached the client (%d findings): %q", name, n, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	doc := "[db]\nhost = db.internal\npw = " + rtmPassword + "   # rotate\n"
	if got, _ := rtqText(t, doc); got != strings.Replace(doc, rtmPassword, "[REDACTED:generic-password]", 1) {
		t.Errorf("more than the value changed: %q", got)
	}
	// Near misses: code and settings that assign no credential.
	for _, doc := range []string{
		"pw = getpass.getpass()\ntoken = self.tokens[0]\nsecret_key = os.environ['SECRET_KEY']\n",
		"password := readPassword(fd)\nif pw == \"\" {\n\treturn err\n}\n",
		"pw = ${DB_PASSWORD}\napi_key = <your key here>\ntoken=\n",
		"[auth]\npassword_policy = strong-passwords-only\npassword_min_length = 12\n",
		"db:\n\tpw: hunter\n\thost: localhost\n",
		"note: |\n  the password is\n  in the vault\n",
		"password: |\n  see the vault\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\n->\n%q", n, doc, got)
		}
	}
}
