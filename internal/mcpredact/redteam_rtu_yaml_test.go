package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtu: YAML the look at its lines did not take for YAML naming a
// credential went out scanned by the text rules alone, though the parser
// (and any client) reads it as a name and its value: a flow sequence
// ("- [DB_PASS, ...]", left open by rtr), a complex key ("? DB_PASS"), a
// key with a tag, a name held by an anchor and read through an alias,
// YAML's flow style written like JSON but no JSON (a quoted key with its
// colon unspaced, the credential's member not first), and lines ended by
// CR alone, NEL, LS or PS (in configuration lines too).
func TestRedTeamRTU_YAMLSpellings(t *testing.T) {
	for name, doc := range map[string]string{
		"flow sequence":        "env:\n  - [DB_PASS, " + rtmPassword + "]\nhost: db.internal\n",
		"flow sequences":       "- [HOST, db.internal]\n- [STRIPE_SECRET, " + rtmToken + "]\n",
		"flow sequence quoted": "- ['DB_PASS', \"" + rtmPassword + "\"]\n- [HOST, db.internal]\n",
		"complex key":          "? DB_PASS\n: " + rtmPassword + "\nhost: db.internal\n",
		"complex key in list":  "- ? pw\n  : " + rtmPassword + "\n- host: db.internal\n",
		"tag on key":           "env:\n  - !!str name: DB_PASS\n    value: " + rtmPassword + "\nhost: db.internal\n",
		"anchor on key":        "env:\n  - &n name: DB_PASS\n    value: " + rtmPassword + "\nhost: db.internal\n",
		"alias of the name":    "x: &n DB_PASS\nenv:\n  - name: *n\n    value: " + rtmPassword + "\nhost: db.internal\n",
		"tagged alias target":  "x: !!str &n DB_PASS\nenv:\n  - {name: *n, value: " + rtmPassword + "}\nhost: db.internal\n",
		"flow style":           "{env: [{name: DB_PASS, value: " + rtmPassword + "}], host: db.internal}",
		"flow style quoted":    "{\"env\": [{\"name\": \"DB_PASS\", \"value\": \"" + rtmPassword + "\"}], host: db.internal}",
		"flow style list":      "[{name: STRIPE_SECRET, value: " + rtmToken + "}, {name: HOST, value: db.internal}]",
		"CR":                   "env:\r  - name: DB_PASS\r    value: " + rtmPassword + "\rhost: db.internal\r",
		"NEL":                  "env:\u0085  - name: DB_PASS\u0085    value: " + rtmPassword + "\u0085host: db.internal\u0085",
		"LS":                   "env:\u2028  - name: DB_PASS\u2028    value: " + rtmPassword + "\u2028host: db.internal\u2028",
		"PS":                   "db:\u2029  host: db.internal\u2029  pw: " + rtmPassword + "\u2029",
		"JSON-style key":       "{\"privKey\":\"" + rtmToken + "\", host: db.internal}",
		"flow, name second":    "{host: db.internal, privKey: " + rtmToken + "}\n",
		"flow list, unspaced":  "- {host: db.internal, \"pw\":'" + rtmPassword + "'}\n",
		"INI with CR":          "[db]\rhost = db.internal\rpw = " + rtmPassword + "\r",
		"properties with LS":   "db.host=db.internal\u2028db.pw=" + rtmPassword + "\u2028",
	} {
		if got, leak := rtrLeaks(t, doc); leak {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	// Near misses: the same spellings naming no credential, or naming
	// one that holds a reference, go out byte for byte.
	for _, doc := range []string{
		"- [HOST, db.internal]\n- [PORT, \"5432\"]\n",
		"- [DB_PASS, ${DB_PASS}]\n- [HOST, db.internal]\n",
		"? HOST\n: db.internal\n? pw\n: ${DB_PASS}\n",
		"x: &n DB_PASS\nenv:\n  - name: *n\n    valueFrom: {secretKeyRef: {name: db, key: pw}}\n",
		"{env: [{name: DB_PASS, valueFrom: {secretKeyRef: {name: db}}}], host: db.internal}",
		"env:\r  - name: DB_PASS\r    value: \"{{ .Values.pw }}\"\rhost: db.internal\r",
		"tokens: [4096, 8192]\npasswords: [required, optional]\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\n->\n%q", n, doc, got)
		}
	}
}

// Red team rtu: after a few tables whose header names a credential and
// whose first row opens a quote it never closes (each read by the CSV
// reader to the end of the text), the reading budget was spent and a
// later table was split at its separator: its quoted cell with the
// separator in it ("Fake,Pa55word!") went out. Past the budget, a text
// whose table may hold a quoted cell is withheld.
func TestRedTeamRTU_CSVBudgetSpent(t *testing.T) {
	pad := strings.Repeat("host,db.internal\n", 5000)
	for name, doc := range map[string]string{
		"burners first": strings.Repeat("name,password\n\"x\n", 4) + pad + "user,password\nadmin,\"Fake,Pa55word!\"\n",
		"burners apart": strings.Repeat("name,password\n\"x\n"+pad, 4) + "user;pw\nadmin;\"Fake;Pa55word!\"\n",
	} {
		if got, _ := rtqText(t, doc); strings.Contains(got, "Pa55word!") {
			t.Errorf("%s: a secret reached the client: %q", name, got[max(0, len(got)-200):])
		}
	}
	// A long table read once keeps its layout.
	doc := pad + "user,password\nadmin,\"Fake,Pa55word!\"\n"
	if got, _ := rtqText(t, doc); got != strings.Replace(doc, "Fake,Pa55word!", "[REDACTED:generic-password]", 1) {
		t.Errorf("more than the cell changed: %q", got[max(0, len(got)-200):])
	}
}
