package mcpredact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// Red team rtq: a JSON document sent as text (a typed go-sdk tool's text
// copy of its structured content, or a tool that returns JSON as text) was
// scanned by the text rules alone, so the names the named scan reads in
// structured content did not count there.

// rtqText returns the text the client receives for a result of one text.
func rtqText(t *testing.T, text string) (string, int) {
	t.Helper()
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	out, f, err := mcpredact.Result(scanner(t), res, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text, len(f)
}

func TestRedTeamRTQ_JSONTextNamedScan(t *testing.T) {
	for name, doc := range map[string]string{
		"Passwort":       `{"Passwort": "` + rtmPassword + `", "host": "db.internal"}`,
		"Name/Value":     `{"env": [{"Name": "DB_PASS", "Value": "` + rtmPassword + `"}], "host": "db.internal"}`,
		"privKey":        `{"signing": {"privKey": "` + rtmToken + `"}, "host": "db.internal"}`,
		"array":          `[{"k": "STRIPE_SECRET", "v": "` + rtmToken + `"}, {"host": "db.internal"}]`,
		"env array":      "{\n  \"Env\": [\"PATH=/usr/bin\", \"DB_PASS=" + rtmPassword + "\"],\n  \"host\": \"db.internal\"\n}",
		"JSON in JSON":   `{"body": "{\"Passwort\": \"` + rtmPassword + `\"}", "host": "db.internal"}`,
		"padded":         "\n  " + `{"passphrase": "` + rtmPassword + `", "host": "db.internal"}` + "\n",
		"fullwidth name": `{"ｐａｓｓｗｏｒｄ": "` + rtmPassword + `", "host": "db.internal"}`,
	} {
		got, n := rtqText(t, doc)
		if strings.Contains(got, rtmPassword) || strings.Contains(got, rtmToken) || n == 0 {
			t.Errorf("%s: a secret reached the client (%d findings): %s", name, n, got)
		}
		if !json.Valid([]byte(got)) || !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %s", name, got)
		}
	}
}

// Near misses: JSON texts without a secret go out byte for byte, a secret
// the text rules find keeps the text's layout, and a text that merely
// looks like an image item is not withheld.
func TestRedTeamRTQ_JSONTextNearMisses(t *testing.T) {
	for _, doc := range []string{
		`{"type":"object","properties":{"password":{"type":"string","minLength":12,"format":"password"}},"required":["password"]}`,
		`{"passwordChangedAt": "2026-11-24T10:00:00Z",   "sessionId": "7f3a9c2e-1b4d-4e8a-9c3f-2a1b3c4d5e6f"}`,
		`[{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]`,
		`{"type": "image", "data": "not base64 at all!", "mimeType": "image/png", "token": "none"}`,
		`{"Passwort": "x", "Passwort": "y"}`,
		`{not json, "password": "`,
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%s\n->\n%s", n, doc, got)
		}
	}
	doc := "{\n    \"z\": 1,\n    \"password\": \"" + rtmPassword + "\"\n}"
	got, _ := rtqText(t, doc)
	if want := strings.Replace(doc, rtmPassword, "[REDACTED:generic-password]", 1); got != want {
		t.Errorf("a secret the text rules find lost the text's layout:\n%s\nwant\n%s", got, want)
	}
}

// A credential's name in another script, spelled with symbols, or kept
// apart from its value (a table's header, a name/value pair whose members
// share a prefix, a two-element row) reached the client from structured
// content: the look-alike folding that reads pаssword as Latin turned
// пароль and токен into no word at all (red team rtq).
func TestRedTeamRTQ_NamesApartFromValues(t *testing.T) {
	s := scanner(t)
	cases := map[string]map[string]any{
		"пароль":          {"пароль": rtmPassword},
		"токен":           {"токен": rtmToken},
		"секрет":          {"секрет": rtmToken},
		"令牌":              {"访问令牌": rtmToken},
		"数据库密码":           {"数据库密码": rtmPassword},
		"heslo":           {"heslo": rtmPassword},
		"mdp":             {"mdp": rtmPassword},
		"p@ssword":        {"p@ssword": rtmPassword},
		"p@ssw0rd":        {"p@ssw0rd": rtmPassword},
		"pa$$word":        {"pa$$word": rtmPassword},
		"columns/rows":    {"columns": []any{"user", "password"}, "rows": []any{[]any{"admin", rtmPassword}}},
		"column objects":  {"fields": []any{map[string]any{"name": "user"}, map[string]any{"name": "api_key"}}, "data": []any{[]any{"admin", rtmToken}}},
		"header row":      {"csv": []any{[]any{"host", "user", "Passwort"}, []any{"db", "admin", rtmPassword}}},
		"pair row":        {"items": []any{[]any{"password", rtmPassword}, []any{"user", "admin"}}},
		"prefixed pair":   {"params": []any{map[string]any{"paramName": "password", "paramValue": rtmPassword}}},
		"prefixed secret": {"secretName": "STRIPE_KEY", "secretValue": rtmToken},
	}
	for name, v := range cases {
		got, n := rtmStructured(t, s, v)
		if strings.Contains(got, rtmPassword) || strings.Contains(got, rtmToken) || n == 0 {
			t.Errorf("%s: a secret reached the client (%d findings): %s", name, n, got)
		}
	}
	// Near misses: names and values that are no secret stay.
	for _, v := range []map[string]any{
		{"columns": []any{"user", "password_set", "passwordChangedAt"}, "rows": []any{[]any{"alice", "true", "2026-11-24T10:00:00Z"}}},
		{"columns": []any{"user", "password"}, "rows": []any{[]any{"alice", ""}, []any{"bob", "********"}}},
		{"secrets": []any{"db-password", "api-key"}, "fields": []any{"password", "password_confirmation"}},
		{"params": []any{map[string]any{"paramName": "timeout", "paramValue": "Fake-Pa55word!"}}},
		{"compass": "north-2", "p@": "x1", "дата": "2026-11-24", "пароли": json.Number("3")},
		{"header": []any{"id", "password"}, "note": "one row", "rows": []any{[]any{"1"}}},
	} {
		if got, n := rtmStructured(t, s, v); n != 0 {
			t.Errorf("%d findings in a value with no secret: %s", n, got)
		}
	}
}

// A JSON document inside a text (NDJSON logs, a log line's payload, a
// Markdown code fence, after an XSSI prefix or a byte order mark) is read
// with its names too; the rest of the text stays.
func TestRedTeamRTQ_JSONLines(t *testing.T) {
	for name, doc := range map[string]string{
		"ndjson":   `{"level":"info","msg":"start"}` + "\n" + `{"level":"debug","msg":"connect","db":{"host":"db.internal","privKey":"` + rtmToken + `"}}` + "\n",
		"log line": "2026-11-24T10:00:00Z DEBUG request body={\"k\": \"STRIPE_SECRET\", \"v\": \"" + rtmToken + "\"}\r\nnext line db.internal",
		"prefix":   "db.internal config: {\"signing\": {\"privKey\": \"" + rtmToken + "\"}}",
		"fence":    "Here is db.internal's config:\n\n```json\n{\n  \"signing\": {\n    \"privKey\": \"" + rtmToken + "\"\n  }\n}\n```\n",
		"xssi":     ")]}'\n[{\"host\": \"db.internal\", \"privKey\": \"" + rtmToken + "\"}]",
		"bom":      "\ufeff{\"host\": \"db.internal\", \"privKey\": \"" + rtmToken + "\"}",
		"two docs": "{\"host\": \"db.internal\"}\n\nand then\n{\n \"k\": \"STRIPE_SECRET\",\n \"v\": \"" + rtmToken + "\"\n}\n",
	} {
		got, n := rtqText(t, doc)
		if strings.Contains(got, rtmPassword) || strings.Contains(got, rtmToken) || n == 0 {
			t.Errorf("%s: a secret reached the client (%d findings): %s", name, n, got)
		}
		if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %s", name, got)
		}
	}
	doc := "2026-11-24T10:00:00Z DEBUG request body={\"user\": \"app\", \"pw\": \"" + rtmPassword + "\"}\r\nnext line\n"
	got, _ := rtqText(t, doc)
	if want := strings.Replace(doc, rtmPassword, "[REDACTED:json-password-member]", 1); got != want {
		t.Errorf("the text around the document changed:\n%q\nwant\n%q", got, want)
	}
	// Near misses: code with braces and JSON-like lines, no secret.
	for _, doc := range []string{
		"func f() {\n\tm := map[string]string{\"token\": tokenName}\n}\n",
		`{"level":"info","msg":"password changed","user":"alice"}` + "\n" + `{"level":"info","token_type":"Bearer"}`,
		"x = {\"key\": \"sort\"}\ny = {\"apiKey\": \"${API_KEY}\"}",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%s\n->\n%s", n, doc, got)
		}
	}
}

// A table sent as text names a credential's column once, in its header:
// its cells are read under the column's name (red team rtq).
func TestRedTeamRTQ_TextTables(t *testing.T) {
	for name, doc := range map[string]string{
		"csv":      "host,user,password\ndb.internal,admin," + rtmPassword + "\n",
		"tsv":      "user\tpassword\thost\nadmin\t" + rtmPassword + "\tdb.internal\n",
		"semi":     "user;Passwort\r\nadmin;" + rtmPassword + "\r\ndb.internal;x\r\n",
		"markdown": "| host | api_key |\n|---|---|\n| db.internal | " + rtmToken + " |\n",
		"psql":     " host        | pw\n-------------+----------------\n db.internal | " + rtmPassword + "\n(1 row)\n",
	} {
		got, n := rtqText(t, doc)
		if strings.Contains(got, rtmPassword) || strings.Contains(got, rtmToken) || n == 0 {
			t.Errorf("%s: a secret reached the client (%d findings): %q", name, n, got)
		}
		if !strings.Contains(got, "db.internal") || strings.Count(got, "\n") != strings.Count(doc, "\n") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	// Near misses: tables whose credential-named columns hold no secret,
	// and code that looks like a header.
	for _, doc := range []string{
		"user,password_set,password_changed\nalice,true,2026-11-24T10:00:00Z\n",
		"| field | type | description |\n|---|---|---|\n| password | string | The new password (min 12 chars) |\n",
		"id,token\n1,\n2,none\n",
		"password, err := readPassword(fd)\nif err != nil {\n\treturn err\n}\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%s\n->\n%s", n, doc, got)
		}
	}
}

// rtqWordsRedacted checks that each text, sent as a tool result, comes
// out with findings and without the passphrase's words ("horse",
// "battery") the attacks put in it.
func rtqWordsRedacted(t *testing.T, docs map[string]string) {
	t.Helper()
	for name, doc := range docs {
		got, n := rtqText(t, doc)
		if n == 0 || strings.Contains(got, "horse") || strings.Contains(got, "battery") {
			t.Errorf("%s: a secret reached the client (%d findings): %q", name, n, got)
		}
	}
}

// rtqUnchanged checks that each text, sent as a tool result, goes out
// byte for byte with no finding.
func rtqUnchanged(t *testing.T, docs []string) {
	t.Helper()
	for _, doc := range docs {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\nto\n%q", n, doc, got)
		}
	}
}
