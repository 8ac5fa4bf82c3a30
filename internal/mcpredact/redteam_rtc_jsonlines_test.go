package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtc: documents in a text that JSON rejects for a string's bytes
// (a Windows path's \U written by hand, a raw line break in a value) were
// not walked, and a secret under a name only the walk reads ("privKey")
// reached the client; documents in other spellings (NaN, single quotes,
// a BOM a line, a document inside a string of one cut short) held.
func TestRedTeamRTC_DocumentsInText(t *testing.T) {
	pw, tok := rtmPassword, rtmToken
	for name, doc := range map[string]string{
		"NaN":              `{"pw": "` + pw + `", "host": "db.internal", "ratio": NaN}`,
		"Infinity":         `{"host": "db.internal", "limit": Infinity, "privKey": "` + tok + `"}`,
		"trailing comma":   `{"privKey": "` + tok + `", "host": "db.internal",}`,
		"single quotes":    `{"host": "db.internal", 'x': 1, "privKey": "` + tok + `"}`,
		"bom per line":     "\ufeff{\"id\": 1}\n\ufeff{\"privKey\": \"" + tok + "\", \"host\": \"db.internal\"}\n",
		"in a string":      `{"log": "got {\"privKey\": \"` + tok + `\", \"host\": \"db.internal\"}", "n": 1`,
		"array of docs":    `[INFO] [{"id": 1}, {"pw": "` + pw + `", "host": "db.internal"}]`,
		"close later":      "{\"host\": \"db.internal\",\n\"privKey\": \"" + tok + "\"\n}\n",
		"cut short":        `{"path": "C:\Users\svc", "privKey": "` + tok + `", "host": "db.internal", "items": [1, 2`,
		"cut over lines":   "{\"items\": [\n{\"path\": \"C:\\Users\\svc\", \"pw\": \"" + pw + "\", \"host\": \"db.internal\"},\n{\"id\": 2",
		"raw newline":      "{\"note\": \"a\nb\", \"privKey\": \"" + tok + "\", \"host\": \"db.internal\"}",
		"windows path":     `{"path": "C:\Users\svc\app", "privKey": "` + tok + `", "host": "db.internal"}`,
		"bad escape":       `{"msg": "a\qb", "pw": "` + pw + `", "host": "db.internal"}`,
		"raw tab":          "{\"msg\": \"a\tb\", \"pw\": \"" + pw + "\", \"host\": \"db.internal\"}",
		"invalid utf8 esc": `{"msg": "\ud83d", "privKey": "` + tok + `", "host": "db.internal"} {"a": 1 2}`,
		"comment":          "{\"host\": \"db.internal\", // primary\n\"privKey\": \"" + tok + "\"}",
		"after syntax err": `{"a": 1 2, "privKey": "` + tok + `", "host": "db.internal"}`,
		"python repr":      `{'privKey': '` + tok + `', 'host': 'db.internal'}`,
		"unquoted name":    `{privKey: "` + tok + `", host: "db.internal"}`,
		"dup first":        `{"id": 1} x {"a" : {"privKey" : "` + tok + `", "host": "db.internal"}}`,
		"space before":     `{ "a": 1, "b": [ {   "privKey": "` + tok + `", "host": "db.internal"} , 7 x ]}`,
	} {
		got, n := rtqText(t, doc)
		if n == 0 || strings.Contains(got, pw) || strings.Contains(got, tok) {
			t.Errorf("%s: a secret reached the client: %q", name, got[max(0, len(got)-200):])
		}
	}
}

// Near misses: such documents without a secret, code that writes JSON in
// its strings and lines of broken strings pass unchanged. Their cost is
// measured by BenchmarkResultUnclosedDocs and BenchmarkResultOpenBrackets,
// not timed here.
func TestRedTeamRTC_DocumentsInTextNearMisses(t *testing.T) {
	broken := strings.Repeat(`{"a": "\q`, 30000) + "\n"
	for _, doc := range []string{
		`{"path": "C:\Users\svc\app", "privKeyId": "3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30", "host": "db.internal"}`,
		"{\"note\": \"a\nb\", \"token_type\": \"Bearer\", \"pw_min_length\": 12}",
		`{"path": "C:\Users\svc\app", "token_type": "Bearer", "items": [1, 2`,
		strings.Repeat("\tfmt.Printf(\"{\\\"password_policy\\\": %q}\\n\", p) // {\"a\": \"\\q\"}\n", 3000),
		strings.Repeat("func f() {\n\tif x {\n\t\ts := \"{\\\"token_type\\\": 1}\"\n\t}\n}\n", 3000),
		broken,
		strings.Repeat("{\"path\": \"C:\\Users\\svc\", \"token_type\": \"Bearer\", \"items\": [1, 2\n", 5000),
		strings.Repeat("2026 {\"path\": \"C:\\Users\\svc\", \"token_type\": \"Bearer\" x\n", 5000),
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%.300q\n->\n%.300q", n, doc, got)
		}
	}
	// A line of broken strings past the budget with a credential named
	// after it is withheld (fail closed).
	got, _ := rtqText(t, broken+`{"privKey": "`+rtmToken+`"}`)
	if strings.Contains(got, rtmToken) {
		t.Errorf("broken strings then a key: %.100q", got)
	}
}
