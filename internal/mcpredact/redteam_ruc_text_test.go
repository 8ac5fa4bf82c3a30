package mcpredact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Red team ruc: secrets in tool results sent as text.

// rucLeaks reports whether got holds one of the fake secrets, or a run
// of 40 bytes of the hex key (a value cut short).
func rucLeaks(got string) bool {
	return strings.Contains(got, rtdHex[:40]) || strings.Contains(got, rtdB64) || strings.Contains(got, rtmPassword) || strings.Contains(got, rtmToken)
}

// A credential's name written with escapes ({"\u0070\u0077": ...}, YAML's
// "\x70\x77": ...) holds no trigger word as written: the text was never
// walked, and the walk, which reads names decoded, never saw it.
func TestRedTeamRUC_EscapedNames(t *testing.T) {
	inner, _ := json.Marshal(map[string]string{"body": `{"\u0070\u0077": "` + rtmPassword + `"}`})
	for name, text := range map[string]string{
		"json \\u pw":       `{"\u0070\u0077": "` + rtmPassword + `", "host": "db"}`,
		"json one escape":   `{"p\u0077": "` + rtmPassword + `", "host": "db"}`,
		"json privKey":      `{"priv\u004bey": "` + rtdHex + `", "host": "db"}`,
		"json \\U":          `{"p\U00000077": "` + rtmPassword + `", "host": "db"}`,
		"json upper hex":    `{"\u0050\u0057": "` + rtmPassword + `", "host": "db"}`,
		"in a log line":     `2026-11-24 INFO {"\u0070\u0077": "` + rtmPassword + `", "host": "db"}` + "\n",
		"cut short":         `{"host": "db", "\u0070\u0077": "` + rtmPassword + `", "x": [1` + "\nnext\n",
		"json in json":      string(inner),
		"yaml \\x":          "db:\n  host: db.internal\n  \"\\x70\\x77\": " + rtmPassword + "\n",
		"yaml \\u":          "db:\n  host: db.internal\n  \"\\u0070\\u0077\": " + rtmPassword + "\n",
		"yaml privKey":      "db:\n  host: db.internal\n  \"priv\\u004bey\": " + rtdHex + "\n",
		"signing key b64":   `{"signing\u004bey": "` + rtdB64 + `", "host": "db"}`,
		"name/value escape": `[{"name": "DB_\u0050ASS", "value": "` + rtmPassword + `"}]`,
	} {
		if got, n := rtqText(t, text); n == 0 || rucLeaks(got) {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		}
	}
}

// Near misses: escapes in texts with no credential pass unchanged.
func TestRedTeamRUC_EscapedNamesNearMisses(t *testing.T) {
	for _, text := range []string{
		`{"name": "caf\u00e9", "city": "K\u00f6ln", "n": 3}`,
		`{"path": "C:\\Users\\x", "msg": "\u0041\u0042"}`,
		"db:\n  host: \"\\x64\\x62\"\n  port: 5432\n",
		`{"user": "\u0070\u0077\u0064", "tokens": 3}`,
		`{"\u0070\u0077": "", "host": "db"}`,
	} {
		if got, n := rtqText(t, text); got != text || n != 0 {
			t.Errorf("changed (%d findings): %q -> %q", n, text, got)
		}
	}
}

// A document JSON rejects for a string's bytes (a Windows path, a raw
// line break) and cut in the middle of the text went out: the repaired
// reading stopped at the cut, and only a document cut at the text's end
// was walked closed; a value cut short by a line break was read as a
// string running on to the next quote (or the end of the text), which is
// no secret's shape.
func TestRedTeamRUC_RepairedDocCut(t *testing.T) {
	for name, text := range map[string]string{
		"path, array cut":     `{"path": "C:\Users\x", "privKey": "` + rtdHex + `", "items": [1` + "\nnext\n",
		"path, then words":    `{"path": "C:\Users\x", "privKey": "` + rtdHex + `", "items": [1 xx` + "\nnext\n",
		"tab, cut":            "{\"note\": \"a\tb\", \"privKey\": \"" + rtdHex + "\", \"n\": {\"a\": 1\nnext\n",
		"in a log":            `INFO {"path": "C:\tmp\q", "signingKey": "` + rtdB64 + `", "n": [` + "\nnext\n",
		"value cut by LF":     `{"host": "db", "privKey": "` + rtdHex + "\nnext line\n",
		"value cut, then doc": `{"host": "db", "privKey": "` + rtdHex + "\nnext line {\"a\": 1}\nnext\n",
		"part of a value":     `{"host": "db", "privKey": "` + rtdHex[:48] + "\nnext line\n",
		"pw cut by LF":        `{"user": "app", "pw": "` + rtmPassword + "\nnext\n",
		"cut, then more doc":  `{"host": "db", "privKey": "` + rtdHex + "\nnext\", \"pw\": \"" + rtmPassword + "\"}\nnext\n",
		"CRLF":                `{"host": "db", "privKey": "` + rtdHex + "\r\nnext\r\n",
	} {
		got, n := rtqText(t, text)
		if n == 0 || rucLeaks(got) {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		}
		if !strings.Contains(got, "next") {
			t.Errorf("%s: the text after the document was lost: %q", name, got)
		}
	}
	// Near misses: such documents without a secret pass unchanged.
	for _, text := range []string{
		`{"path": "C:\Users\x", "token_type": "Bearer", "items": [1` + "\nnext\n",
		`{"host": "db", "msg": "token refresh` + "\nnext line\n",
		"{\"msg\": \"line one\nline two\", \"password_policy\": {\"min\": 12}}\n",
		`{"path": "C:\Users\x", "session": "ok"} xx` + "\nnext\n",
	} {
		if got, n := rtqText(t, text); got != text || n != 0 {
			t.Errorf("changed (%d findings): %q -> %q", n, text, got)
		}
	}
}

// rucLogLines is n JSON log lines of a KiB each, cut short by the tool
// that prints them, each naming a token in its message.
func rucLogLines(n int) string {
	var b strings.Builder
	for i := range n {
		var l strings.Builder
		fmt.Fprintf(&l, `{"level": "info", "seq": %d, "msg": "token refreshed", "items": [`, i)
		for j := 0; l.Len() < 1500; j++ {
			fmt.Fprintf(&l, `{"id": %d, "meta": {"owner": "team-%d", "tags": {"env": "prod"}}}, `, j, j)
		}
		b.WriteString(l.String()[:1024] + " ...[truncated]\n")
	}
	return b.String()
}

// Forty JSON log lines cut short were withheld whole as a nested document:
// after each cut document the reading started again at every { inside it,
// a line's length each, and spent its budget. A secret after them is
// still found.
func TestRedTeamRUC_TruncatedLogLines(t *testing.T) {
	for _, n := range []int{40, 400} {
		text := rucLogLines(n)
		if got, f := rtqText(t, text); got != text || f != 0 {
			t.Errorf("%d lines: changed (%d findings): %.120q", n, f, got)
		}
		for name, tail := range map[string]string{
			"doc":           `{"host": "db", "privKey": "` + rtdHex + `"}` + "\n",
			"cut doc":       `{"host": "db", "privKey": "` + rtdHex + `", "items": [1` + "\nnext\n",
			"in a cut line": `{"level": "info", "msg": "see {"privKey": "` + rtdHex + `"}` + "\nnext\n",
		} {
			if got, f := rtqText(t, text+tail); f == 0 || rucLeaks(got) {
				t.Errorf("%d lines, then %s: a secret reached the client: %q", n, name, got[max(0, len(got)-200):])
			}
		}
	}
}

// A document nested thousands deep that the walk redacts was encoded
// again indented, twice its depth on each line: 100 KiB of {"a":<LF>
// came out as 200 MB. The output is now about the input's size.
func TestRedTeamRUC_DeepIndent(t *testing.T) {
	for name, text := range map[string]string{
		"9000 deep":         strings.Repeat("{\"a\":\n", 9000) + `{"b": 1, "privKey": "` + rtdHex + `", "c":` + strings.Repeat("{\"a\":\n", 9000),
		"12000 deep":        strings.Repeat("{\"a\":\n", 12000) + `{"b": 1, "privKey": "` + rtdHex + `", "c":` + strings.Repeat("{\"a\":\n", 12000),
		"bad escapes":       strings.Repeat("{\"a\": \"\\q\", \"b\": {\"c\": \"\\d+\", \"privKey\": \""+rtdHex+"\", \"x\": [\n", 5000),
		"MiB":               strings.Repeat("{\"a\":\n", 1<<20/6) + `{"privKey": "` + rtdHex + `"}`,
		"bad escapes, then": strings.Repeat("{\"a\": \"\\q\", \"b\": {\"c\": \"\\d+\", \"x\": [\n", 5000) + "{\"a\": \"\\q\", \"privKey\": \"" + rtdHex + "\"}",
	} {
		if raceDetector && (name == "bad escapes" || name == "MiB") {
			continue
		}
		got, n := rtqText(t, text)
		if n == 0 || rucLeaks(got) {
			t.Errorf("%s: a secret reached the client: %.200q", name, got)
		}
		if len(got) > 2*len(text) {
			t.Errorf("%s: %d bytes in, %d out", name, len(text), len(got))
		}
	}
	// Near miss: a shallow document keeps its indent.
	text := "{\n  \"a\": {\n    \"privKey\": \"" + rtdHex + "\"\n  }\n}"
	if got, _ := rtqText(t, text); got != "{\n  \"a\": {\n    \"privKey\": \"[REDACTED:generic-secret]\"\n  }\n}" {
		t.Errorf("indent lost: %q", got)
	}
}
