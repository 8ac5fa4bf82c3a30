package gatehouse_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Red team rta: a tool that logs a command's output as bufio.Reader's
// ReadLine returns it sends a line per message without its newline, and a
// line longer than the reader's buffer (4 KiB by default) in pieces of
// that size, the last without a newline either. A Kubernetes Secret's
// data entry longer than that (the base64 of an RSA 4096 key, tls.key, is
// over 4 KiB) was cut mid-value: read as written the stream has no
// Secret's header (its lines are joined with nothing between them), and
// read with a line break at each boundary the rest of the value is a line
// of its own, no entry of the block: the rest went out in the clear.

// rtaReadLines returns doc as a tool that reads it with ReadLine (a reader
// of size bytes) and logs each result sends it.
func rtaReadLines(t *testing.T, doc string, size int) []string {
	t.Helper()
	r := bufio.NewReaderSize(strings.NewReader(doc), size)
	var out []string
	for {
		line, _, err := r.ReadLine()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(line))
	}
}

// rtaSecret returns a Secret's YAML with entries before a value of n
// base64 characters, and the value.
func rtaSecret(entries, n int) (string, string) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\ndata:\n")
	for i := range entries {
		fmt.Fprintf(&b, "  ca%02d.crt: %s==\n", i, rtzB64(300+i, 40))
	}
	v := rtzB64(7, n) + "=="
	fmt.Fprintf(&b, "  tls.key: %s\n", v)
	return b.String(), v
}

// rtaPieces returns the pieces of v to look for in what the client got:
// one in each 512 bytes.
func rtaPieces(v string) []string {
	var out []string
	for i := 0; i+48 <= len(v); i += 512 {
		out = append(out, v[i:i+48])
	}
	return out
}

func TestRedTeamRTA_LongValueReadLine(t *testing.T) {
	for _, c := range []struct {
		name             string
		entries, n, size int
	}{
		{"rsa 4096 tls.key, default reader", 0, 4400, 4096},
		{"after entries, default reader", 3, 6000, 4096},
		{"small reader, many pieces", 1, 3000, 256},
		{"smallest reader", 0, 2000, 16},
	} {
		doc, v := rtaSecret(c.entries, c.n)
		lines := rtaReadLines(t, doc, c.size)
		rtzNoLeak(t, c.name, lines, rtaPieces(v)[1:])
	}
}

// A PEM key in a stringData block scalar after more entries than the
// block's kept end holds (blockTail), read with ReadLine: the key's own
// rule finds its body (held on main; kept as a guard).
func TestRedTeamRTA_ReadLineBlockScalar(t *testing.T) {
	pem := pemLines(20)
	doc := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\nstringData:\n"
	for i := range 8 {
		doc += fmt.Sprintf("  ca%02d.crt: %s==\n", i, rtzB64(400+i, 40))
	}
	doc += "  tls.key: |\n    " + strings.Join(pem, "\n    ") + "\n"
	for _, size := range []int{4096, 32} {
		rtzNoLeak(t, fmt.Sprintf("reader of %d bytes", size), rtaReadLines(t, doc, size), []string{pem[3], pem[10], pem[18]})
	}
}

// Near misses: what holds no secret, read with ReadLine, arrives as sent
// (a long log line cut by the reader, a long digest), and the document
// after a Secret's block is untouched.
func TestRedTeamRTA_ReadLineNearMisses(t *testing.T) {
	long := strings.Repeat("INFO compiling package internal/x ok; ", 200)
	for name, doc := range map[string]string{
		"long log line": "build started\n" + long + "\nbuild done\n",
		"long base64":   "digest " + rtzB64(6, 9000) + "\nok\n",
		"short lines":   "kind: Deployment\ndata:\n  level: info\n  mode: fast\n---\nkind: Service\n",
	} {
		lines := rtaReadLines(t, doc, 4096)
		logs, progress := rtzStream(t, lines)
		if want := strings.Join(lines, ""); logs != want || progress != want {
			t.Errorf("%s: changed:\nlogs     %.200q\nprogress %.200q", name, logs, progress)
		}
	}
	doc, v := rtaSecret(1, 5000)
	doc = strings.Replace(doc, v, v[:len(v)-3], 1) + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
	logs, _ := rtzStream(t, rtaReadLines(t, doc, 4096))
	if !strings.HasSuffix(logs, "---apiVersion: v1kind: Servicemetadata:  name: web") {
		t.Errorf("the document after the Secret was changed: %.300q", logs[max(0, len(logs)-300):])
	}
}
