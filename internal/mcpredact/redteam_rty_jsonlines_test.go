package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rty: jsonLines read one JSON document a line, from the line's
// first { or [. A document after another on its line, one after a bracket
// that opens no document, and the members of a document cut short (a
// tool's output truncated at so many bytes) were never walked, and the
// text rules, which know neither "privKey" nor "pw", sent the secret on;
// so was every document after a few lines that open an array never closed
// had spent the reading budget.
func TestRedTeamRTY_DocumentsInText(t *testing.T) {
	pw, tok := rtmPassword, rtmToken
	spend := strings.Repeat("{\"a\": [\n", 20000) + "x\n"
	for name, doc := range map[string]string{
		"two on a line":     `{"id": 1} {"privKey": "` + tok + `", "host": "db.internal"}`,
		"after a failed":    `2026-11-24 INFO got {"a": [1, 2} then {"privKey": "` + tok + `", "host": "db.internal"}`,
		"after a bracket":   `[INFO] {"pw": "` + pw + `", "host": "db.internal"}`,
		"cut short":         `{"host": "db.internal", "privKey": "` + tok + `", "items": [1, 2, 3`,
		"cut short nested":  `{"signing": {"privKey": "` + tok + `", "host": "db.internal"}, "items": [{"id": 1}, {"id": 2, "na`,
		"cut in the value":  `{"host": "db.internal", "privKey": "` + tok,
		"cut in an escape":  `{"host": "db.internal", "pw": "` + pw + `\u00`,
		"cut over lines":    "{\n  \"host\": \"db.internal\",\n  \"pw\": \"" + pw + "\",\n  \"items\": [\n    1,\n",
		"cut in an array":   `[{"name": "DB_PASS", "value": "` + pw + `"}, {"name": "HOST", "value": "db.internal"}, {"name": "X`,
		"budget spent":      spend + `{"privKey": "` + tok + `", "host": "db.internal"}` + "\n",
		"lines of brackets": strings.Repeat("[\n"+strings.Repeat(" ", 40000)+"\n", 5) + `{"privKey": "` + tok + `", "host": "db.internal"}` + "\n",
	} {
		got, n := rtqText(t, doc)
		if n == 0 || strings.Contains(got, pw) || strings.Contains(got, tok) {
			t.Errorf("%s: a secret reached the client: %q", name, got[max(0, len(got)-200):])
		}
		if name != "budget spent" && !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got[max(0, len(got)-200):])
		}
	}
}

// Near misses: documents cut short, several on a line and logs full of
// brackets that hold no secret are sent as they are, whatever their size.
func TestRedTeamRTY_DocumentsInTextNearMisses(t *testing.T) {
	logs := strings.Repeat("[INFO] token refresh served in 3ms {user: 7} [a][b] {\"ok\": true}\n", 5000)
	code := strings.Repeat("\tif x := m[\"password_policy\"]; x != nil && y[0] > 1 { return map[string]any{\"token_type\": x} }\n", 2000)
	for _, doc := range []string{
		`{"token_type": "Bearer", "expires_in": 3600, "items": [{"id": 1}, {"id": 2, "na`,
		`{"access_token": "[REDACTED]", "password_set": true} {"pw_min_length": 12}`,
		`[INFO] {"password_reset_url": "https://example.com/reset?step=1", "pw_rules": "minlength: 20;"}`,
		`{"privKeyId": "3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30", "secret": "${SECRET}", "note": "cut \`,
		"{\n  \"password\": \"${DB_PASSWORD}\",\n  \"token\": null,\n  \"items\": [\n",
		logs,
		code,
		logs + `{"password_hint": "the usual", "items": [1, 2`,
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%.300q\n->\n%.300q", n, doc, got)
		}
	}
}
