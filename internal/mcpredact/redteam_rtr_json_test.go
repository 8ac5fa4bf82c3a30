package mcpredact_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Red team rtr: a CSV cell quoted with the separator in it, a JSON text
// with two members of one name, and a JSON text nested more than four
// documents deep were left to the text rules, which do not read a
// column's or a member's name with its value.

func TestRedTeamRTR_QuotedCSV(t *testing.T) {
	for name, doc := range map[string]string{
		"separator in cell":  "host,user,password\ndb.internal,admin,\"p,a" + rtmPassword + "\"\n",
		"quoted header":      "\"host\",\"user\",\"password\"\n\"db.internal\",\"admin\",\"" + rtmPassword + "\"\n",
		"doubled quotes":     "host,Passwort\ndb.internal,\"say\"\"hi\"\"" + rtmPassword + "\"\n",
		"line break in cell": "note,api_key,host\n\"two\nlines\"," + rtmToken + ",db.internal\n",
		"semicolons":         "host;pw\r\n\"db.internal\";\"a;" + rtmPassword + "\"\r\n",
		"tabs":               "host\tpw\n\"db.internal\tx\"\t\"" + rtmPassword + "\"\n",
		"second row":         "user,password,host\nalice,\"\",db.internal\nbob,\"x," + rtmPassword + "\",db.internal\n",
		"blank line":         "user,password,host\n\n\"bob\",\"" + rtmPassword + "\",db.internal\n",
	} {
		got, leak := rtrLeaks(t, doc)
		if leak {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	// Only the row with the secret is written again.
	doc := "id;Passwort\n1;\"" + rtmPassword + "\"\n2;\"a;b\"\n"
	if got, _ := rtqText(t, doc); got != "id;Passwort\n1;\"[REDACTED:generic-password]\"\n2;\"a;b\"\n" {
		t.Errorf("more than the secret changed: %q", got)
	}
	// Near misses.
	for _, doc := range []string{
		"\"user\",\"password_set\"\n\"alice\",\"true\"\n",
		"\"field\",\"type\",\"description\"\n\"password\",\"string\",\"The new password, min 12 chars\"\n",
		"id,token\n1,\"\"\n2,\"none\"\n",
		"user,password\n\"bob\",\"********\"\n\"eve\",\"a \"\"quoted\"\" word\"\n",
		"user,password\n\"never closed,\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\n->\n%q", n, doc, got)
		}
	}
}

func TestRedTeamRTR_DuplicateMembers(t *testing.T) {
	for name, doc := range map[string]string{
		"pw last":          `{"host": "db.internal", "pw": "x", "pw": "` + rtmPassword + `"}`,
		"pw first":         `{"host": "db.internal", "pw": "` + rtmPassword + `", "pw": "x"}`,
		"pw middle":        `{"host": "db.internal", "pw": "x", "pw": "` + rtmPassword + `", "pw": "y"}`,
		"name hidden last": `{"host": "db.internal", "k": "STRIPE_SECRET", "k": "x", "v": "` + rtmToken + `"}`,
		"name hidden 1st":  `{"host": "db.internal", "k": "x", "k": "STRIPE_SECRET", "v": "` + rtmToken + `"}`,
		"nested":           `{"host": "db.internal", "db": {"Passwort": "` + rtmPassword + `", "Passwort": "x"}}`,
		"in an array":      `[{"host": "db.internal"}, {"Name": "DB_PASS", "Name": "HOST", "Value": "` + rtmPassword + `"}]`,
		"in a JSON string": `{"host": "db.internal", "body": "{\"pw\": \"` + rtmPassword + `\", \"pw\": \"x\"}"}`,
	} {
		got, leak := rtrLeaks(t, doc)
		if leak {
			t.Errorf("%s: a secret reached the client: %s", name, got)
		} else if !json.Valid([]byte(got)) || !strings.Contains(got, "db.internal") || strings.Count(got, `"`) < strings.Count(doc, `"`)-2 {
			t.Errorf("%s: more than the secret changed: %s", name, got)
		}
	}
	for _, doc := range []string{
		`{"Passwort": "x", "Passwort": "y"}`,
		`{"k": "HOST", "k": "PORT", "v": "Fake-Pa55word!"}`,
		`{"token": null, "token": 12}`,
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%s\n->\n%s", n, doc, got)
		}
	}
}

// nestJSON puts doc n times inside the string of a "body" member.
func nestJSON(doc string, n int) string {
	for range n {
		q, _ := json.Marshal(doc)
		doc = `{"host": "db.internal", "body": ` + string(q) + `}`
	}
	return doc
}

func TestRedTeamRTR_DeepJSONText(t *testing.T) {
	for _, depth := range []int{4, 5, 6, 8, 12, 15} {
		doc := nestJSON(`{"Passwort": "`+rtmPassword+`"}`, depth)
		if got, leak := rtrLeaks(t, doc); leak {
			t.Errorf("depth %d: a secret reached the client (%d bytes)", depth, len(got))
		} else if strings.Contains(got, "nested-document") {
			t.Errorf("depth %d: withheld whole, not read", depth)
		}
	}
	// Past the bound, the deepest document is withheld, not sent.
	doc := nestJSON(`{"Passwort": "`+rtmPassword+`"}`, 17)
	if got, leak := rtrLeaks(t, doc); leak || !strings.Contains(got, "nested-document") {
		t.Errorf("depth 17: not withheld (%d bytes)", len(got))
	}
	// Near miss: deep documents that name no credential stay.
	doc = nestJSON(`{"status": "ok"}`, 17)
	if got, n := rtqText(t, doc); got != doc || n != 0 {
		t.Errorf("a deep document without a credential's name changed (%d findings)", n)
	}
}

// A double quote inside a credential-named value ended the rules' quoted
// value, so a password with a quote in it reached the client from
// structured content and from every text the named scan reads.
func TestRedTeamRTR_QuoteInValue(t *testing.T) {
	s := scanner(t)
	for name, v := range map[string]map[string]any{
		"member":   {"password": `Fake"Pa55word!`},
		"pair":     {"Name": "DB_PASS", "Value": `a"b` + rtmPassword},
		"trailing": {"pw": rtmPassword + `"`},
	} {
		if got, n := rtmStructured(t, s, v); n == 0 || strings.Contains(got, "Pa55word!") {
			t.Errorf("%s: a secret reached the client (%d findings): %s", name, n, got)
		}
	}
	if got, n := rtmStructured(t, s, map[string]any{"password_hint": `the "usual" one`, "pw": `"`}); n != 0 {
		t.Errorf("%d findings in a value with no secret: %s", n, got)
	}
}
