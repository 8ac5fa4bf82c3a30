package mcpredact_test

import (
	"strings"
	"testing"
)

// rtdHex is a fake 64-hex private key; rtdB64 a fake base64 one.
const (
	rtdHex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	rtdB64 = "q3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5KsA2bC3dE4fG5h="
)

// Red team rtd: documents that JSON rejects for a string's bytes were
// repaired by scanning from their opening bracket to where it closes, and
// one never closed was scanned to the end of the text. A few hundred
// lines that open such a document and never close it ({"a": "\q, a raw
// line break in a string, a Windows path in a log line) spent the repair
// budget, and a later document that needed the repair went out with its
// secret under a name only the walk reads ("privKey").
func TestRedTeamRTD_RepairBudget(t *testing.T) {
	spends := map[string]string{
		"bad escape":   "{\"a\": \"\\q\n",
		"raw newline":  "{\"a\": \"x\n",
		"windows path": "2026-11-24 INFO got {\"a\": \"C:\\x\n",
		"cut members":  "{\"path\": \"C:\\Users\\svc\", \"token_type\": \"Bearer\", \"items\": [1, 2\n",
		"two a line":   "{\"a\": \"\\q\", \"b\": {\"c\": \"\\q\n",
	}
	tails := map[string]string{
		"path hex":   `{"path": "C:\Users\svc", "privKey": "` + rtdHex + `", "host": "db.internal"}` + "\n",
		"path b64":   `{"path": "C:\Users\svc", "signingKey": "` + rtdB64 + `", "host": "db.internal"}` + "\n",
		"newline pw": "{\"note\": \"a\nb\", \"pw\": \"" + rtmPassword + "\", \"host\": \"db.internal\"}\n",
		"cut short":  `{"path": "C:\Users\svc", "privKey": "` + rtdHex + `", "host": "db.internal", "items": [1, 2`,
		"in a log":   `2026-11-24 INFO saved {"path": "C:\Users\svc", "privKey": "` + rtdHex + `", "host": "db.internal"} ok` + "\n",
	}
	ks := []int{1000, 3000}
	if raceDetector {
		ks = ks[:1]
	}
	for sn, spend := range spends {
		for _, k := range ks {
			for tn, tail := range tails {
				got, n := rtqText(t, strings.Repeat(spend, k)+tail)
				if n == 0 || strings.Contains(got, rtdHex) || strings.Contains(got, rtdB64) || strings.Contains(got, rtmPassword) {
					t.Errorf("%s x%d, then %s: a secret reached the client: %q", sn, k, tn, got[max(0, len(got)-160):])
				}
			}
		}
	}
}

// Near misses: thousands of log lines whose documents never close, with
// Windows paths and raw line breaks in their strings and no secret, pass
// unchanged (they are neither withheld nor encoded again), and so does a
// MiB of openings; in linear time (BenchmarkResultUnclosedDocs).
func TestRedTeamRTD_RepairBudgetNearMisses(t *testing.T) {
	for name, doc := range map[string]string{
		"cut members":  strings.Repeat("2026-11-24 INFO {\"path\": \"C:\\Users\\svc\", \"token_type\": \"Bearer\", \"items\": [1, 2\n", 5000),
		"raw newline":  strings.Repeat("{\"msg\": \"line one\nline two\", \"password_policy\": {\"min\": 12\n", 5000),
		"bad escapes":  strings.Repeat("{\"a\": \"\\q\", \"b\": {\"c\": \"\\d+\", \"token_type\": [\n", 2000),
		"openings":     strings.Repeat(`{"a":`, 1<<20/5),
		"openings nl":  strings.Repeat("{\"a\":\n", 1<<20/6),
		"log levels":   strings.Repeat("[INFO] token refresh {\"path\": \"C:\\tmp\"\n", 5000),
		"closed ones":  strings.Repeat("{\"path\": \"C:\\Users\\svc\", \"token_type\": \"Bearer\"}\n", 5000),
		"braces, logs": strings.Repeat("[INFO] {user: 7} token refresh {\"ok\": true} [a][b] {\"path\": \"C:\\tmp\"\n", 5000),
	} {
		if raceDetector && (name == "raw newline" || name == "cut members") {
			continue // seconds each under -race; "closed ones" reads the same way
		}
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("%s: changed (%d findings):\n%.200q\n->\n%.200q", name, n, doc[max(0, len(doc)-200):], got[max(0, len(got)-200):])
		}
	}
	// Openings nested deeper than the decoder reads, never closed, are
	// read in pieces as deep as the decoder reads, each from where the
	// last one stopped (red team ruc; they were withheld whole when they
	// named a credential), and pass unchanged with none in them
	// (TestRedTeamRUC_DeepIndent has them with secrets);
	// BenchmarkResultUnclosedDocs measures the cost.
	for name, doc := range map[string]string{
		"openings":    strings.Repeat("{\"a\":\n", 1<<20/6) + `{"token_type": "Bearer"}`,
		"bad escapes": strings.Repeat("{\"a\": \"\\q\", \"b\": {\"c\": \"\\d+\", \"token_type\": [\n", 5000),
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("%s: changed (%d findings): %.100q", name, n, got)
		}
	}
}

// A document cut short in the middle of a text, where something else
// follows (a tool's output truncated per line, a log line cut at so many
// bytes), went out with its secret: only one cut at the text's end was
// read closed (found by red team rtd, fixed after it).
func TestRedTeamRTD_CutInTheMiddle(t *testing.T) {
	head := `{"host": "db", "privKey": "` + rtdHex + `"`
	for name, text := range map[string]string{
		"array cut":    head + `, "items": [1, 2` + "\nnext line\n",
		"then a doc":   head + `, "items": [1, 2` + "\n{\"ok\": true} next\n",
		"no brace":     head + "\nnext\n",
		"in a log":     "INFO " + head + `, "items": [1, 2 and more text` + "\n",
		"literal cut":  head + `, "x": tru` + "\nnext line\n",
		"wrong closer": head + `, "items": [1}` + "\nnext\n",
		"crlf":         head + `, "n": {"a": 1` + "\r\nnext\r\n",
		"b64 signing":  `{"signingKey": "` + rtdB64 + `", "n": [` + "\n-- cut --\n",
		"pw cut":       `{"user": "app", "pw": "` + rtmPassword + `", "opts": {"a": ` + "\nmore\n",
		"nested cut":   `{"a": {"b": {"privKey": "` + rtdHex + `", "c": [` + "\nnext\n",
		"after a doc":  `{"ok": 1} ` + head + `, "items": [1` + "\nnext\n",
	} {
		got, n := rtqText(t, text)
		if n == 0 || strings.Contains(got, rtdHex) || strings.Contains(got, rtdB64) || strings.Contains(got, rtmPassword) {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		}
		if !strings.Contains(got, "next") && !strings.Contains(got, "more") && !strings.Contains(got, "cut --") {
			t.Errorf("%s: the text after the document was lost: %q", name, got)
		}
	}
	// Near misses: such documents with no credential, and code, pass
	// unchanged.
	for _, text := range []string{
		`{"host": "db", "items": [1, 2` + "\nnext line\n",
		`{"token_type": "Bearer", "expires_in": 3600, "scope": [` + "\nnext\n",
		"func main() {\n\tpassword := os.Getenv(\"PW\")\n}\n",
		`[INFO] {"password_policy": {"min": 12` + " and more\n",
		"if (x) {\n  token = refresh();\n}\n",
	} {
		if got, n := rtqText(t, text); got != text || n != 0 {
			t.Errorf("changed (%d findings): %q -> %q", n, text, got)
		}
	}
}
