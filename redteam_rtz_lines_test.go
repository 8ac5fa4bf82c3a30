package gatehouse_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rtz: a tool that logs a command's output a line per message
// without the newline (bufio.Scanner's Text, the usual way) sends a
// Secret's lines as messages that, joined as written, read "kind:
// Secretmetadata:": no rule that reads a run of lines (a Secret's data
// block, a PEM key's body, a PuTTY key's Private-Lines) matched, and the
// values reached the client in log and progress messages. The stream is
// now read both ways, as written and with a line break at each boundary
// that has none.

// rtzB64 returns n base64 characters, the same for the same i.
func rtzB64(i, n int) string {
	r := rand.New(rand.NewPCG(uint64(i), 77))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b strings.Builder
	for range n {
		b.WriteByte(b64[r.IntN(len(b64))])
	}
	return b.String()
}

// rtzStream calls a tool that sends lines, one per message (as log
// messages and as progress messages), and returns what the client got of
// each, joined.
func rtzStream(t *testing.T, lines []string) (logs, progress string) {
	t.Helper()
	cs, received := streamServer(t, lines)
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("rtz")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	got := received()
	return got[0], got[1]
}

// rtzNoLeak fails when any of values reached the client in either kind of
// message.
func rtzNoLeak(t *testing.T, name string, lines, values []string) {
	t.Helper()
	logs, progress := rtzStream(t, lines)
	for kind, out := range map[string]string{"log": logs, "progress": progress} {
		for _, v := range values {
			if strings.Contains(out, v) {
				t.Errorf("%s (%s messages): %.40s... reached the client", name, kind, v)
			}
		}
	}
}

func TestRedTeamRTZ_SecretsLoggedLinePerMessage(t *testing.T) {
	pw := "c3VwZXJzZWNyZXRwYXNzd29yZDEyMw=="
	user := "YWRtaW5pc3RyYXRvcg=="
	pem := pemLines(20)
	putty := []string{"PuTTY-User-Key-File-3: ssh-rsa", "Encryption: none", "Comment: rsa-key-20261124", "Public-Lines: 2", rtzB64(1, 64), rtzB64(2, 40), "Private-Lines: 4"}
	var private []string
	for i := range 4 {
		private = append(private, rtzB64(10+i, 64))
	}
	putty = append(append(putty, private...), "Private-MAC: 0123456789abcdef0123456789abcdef01234567")
	for _, c := range []struct {
		name   string
		lines  []string
		values []string
	}{
		{"kind first", []string{"apiVersion: v1", "kind: Secret", "metadata:", "  name: db", "type: Opaque", "data:", "  app.conf: " + pw, "  user: " + user}, []string{pw, user}},
		{"data first, as kubectl prints it", []string{"apiVersion: v1", "data:", "  password: " + pw, "  username: " + user, "kind: Secret", "metadata:", "  name: db", "  namespace: default", "type: Opaque"}, []string{pw, user}},
		{"stringData", []string{"apiVersion: v1", "kind: Secret", "metadata:", "  name: db", "stringData:", "  app.conf: Fake-Pa55word-Zq81x", "  db.host: db-0"}, []string{"Fake-Pa55word-Zq81x", "db-0"}},
		{"pem private key", pem, []string{pem[1], pem[5], pem[19]}},
		{"putty private key", putty, private},
	} {
		rtzNoLeak(t, c.name, c.lines, c.values)
	}
}

// Structured records, a line each ({"stream": "stdout", "line": ...}):
// each member is a stream, read both ways too.
func TestRedTeamRTZ_StructuredRecordsLinePerMessage(t *testing.T) {
	pw := "c3VwZXJzZWNyZXRwYXNzd29yZDEyMw=="
	lines := []string{"apiVersion: v1", "kind: Secret", "metadata:", "  name: db", "type: Opaque", "data:", "  app.conf: " + pw}
	for name, mk := range map[string]func(string) any{
		"map":    func(c string) any { return map[string]any{"stream": "stdout", "line": c, "seq": 1} },
		"struct": func(c string) any { return logRecord{Stream: "stdout", Line: c, Seq: 1} },
	} {
		if got := structLogs(t, lines, mk); strings.Contains(got, pw) {
			t.Errorf("%s: the Secret's value reached the client:\n%s", name, got)
		}
	}
}

// The newline view's ranges are moved back to the text's offsets (the
// line break it inserts is in no message): what a message loses is its
// own share, and the line after the block is untouched.
func TestRedTeamRTZ_OnlyTheSecretsShareIsRedacted(t *testing.T) {
	lines := []string{"apiVersion: v1", "kind: Secret", "metadata:", "  name: db", "type: Opaque", "data:", "  app.conf: c3VwZXJzZWNyZXRwYXNzd29yZDEyMw==", "  user: YWRtaW5pc3RyYXRvcg==", "---", "kind: Service"}
	want := "apiVersion: v1kind: Secretmetadata:  name: dbtype: Opaquedata:[REDACTED:kubernetes-secret-data][REDACTED:kubernetes-secret-data]---kind: Service"
	logs, progress := rtzStream(t, lines)
	if logs != want || progress != want {
		t.Errorf("got\nlogs     %q\nprogress %q\nwant     %q", logs, progress, want)
	}
}

// Hundreds of entries, a line per message: the newline view's kept end
// keeps the block's header as the plain one does (keepBlock).
func TestRedTeamRTZ_LongDataBlockLinePerMessage(t *testing.T) {
	lines := []string{"apiVersion: v1", "kind: Secret", "metadata:", "  name: bundle", "type: Opaque", "data:"}
	var values []string
	for i := range 300 {
		v := rtzB64(100+i, 40) + "=="
		values = append(values, v)
		lines = append(lines, fmt.Sprintf("  key%03d: %s", i, v))
	}
	rtzNoLeak(t, "300 entries", lines, values)
}

// Near misses: what holds no secret arrives as sent, and a token cut
// mid-word across two chunks is still joined as written.
func TestRedTeamRTZ_LinePerMessageNearMisses(t *testing.T) {
	for name, lines := range map[string][]string{
		"log lines": {"2026-11-24T19:30:01 INFO build step 1 of 3", "compiling package internal/x ok", "data:", "  level: info", "kind: Deployment", "Private-Lines: none", "-----BEGIN CERTIFICATE-----"},
		"configmap": {"apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: app", "data:", "  app.conf: " + rtzB64(3, 40) + "==", "  level: info"},
	} {
		logs, progress := rtzStream(t, lines)
		want := strings.Join(lines, "")
		if logs != want || progress != want {
			t.Errorf("%s: changed:\nlogs     %q\nprogress %q", name, logs, progress)
		}
	}
	tok := "ghp_" + "R8x2mQ7vT4kLp9sWz3nB6yH1cJ5fD0gAe2Kq"
	logs, progress := rtzStream(t, []string{"token=" + tok[:14], tok[14:], " done"})
	for kind, out := range map[string]string{"log": logs, "progress": progress} {
		if strings.Contains(out, tok[14:]) {
			t.Errorf("%s: the token's second part reached the client: %q", kind, out)
		}
		if !strings.HasSuffix(out, " done") {
			t.Errorf("%s: the line after it was mangled: %q", kind, out)
		}
	}
}
