package gatehouse

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// rtpKubectlYAML returns a Secret as kubectl get -o yaml prints it (data
// first, every value padded base64, kind after) with a data block of about
// size bytes, and its values.
func rtpKubectlYAML(size int) (string, []string) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\ndata:\n")
	var vals []string
	for i := 0; b.Len() < size; i++ {
		h := sha256.Sum256([]byte(fmt.Sprint("rtp", i)))
		v := base64.StdEncoding.EncodeToString(append(h[:], h[:10]...))
		vals = append(vals, v)
		fmt.Fprintf(&b, "  key-%d: %s\n", i, v)
	}
	b.WriteString("kind: Secret\nmetadata:\n  name: db\ntype: Opaque\n")
	return b.String(), vals
}

// rtpSend sends msgs as log messages of one logger and returns what
// reached the client, the texts joined.
func rtpSend(t *testing.T, s *dlp.Scanner, msgs []string) string {
	t.Helper()
	var params []mcp.Params
	for _, m := range msgs {
		params = append(params, &mcp.LoggingMessageParams{Logger: "kubectl", Data: m})
	}
	var out strings.Builder
	for _, line := range strings.Split(rthNotify(t, s, nil, "notifications/message", params), "\n") {
		var p struct{ Data string }
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		out.WriteString(p.Data)
	}
	return out.String()
}

// Red team rtp: kubectl get secret -o yaml streamed line by line, its
// stderr (klog warnings, "Warning: ...") logged to the same logger between
// two entries of the Secret's data block: the warning ended the block, and
// the entries after it went out in the clear. A warning after the block's
// last line of a message keeps the block open for the next one.

// rtpInterleave returns doc with line fl inserted after every every-th
// line of its data block's entries.
func rtpInterleave(doc, fl string, every int) string {
	var b strings.Builder
	n := 0
	for _, line := range strings.SplitAfter(doc, "\n") {
		b.WriteString(line)
		if strings.HasPrefix(line, "  key-") {
			if n++; n%every == 0 {
				b.WriteString(fl + "\n")
			}
		}
	}
	return b.String()
}

func TestRedTeamRTP_ForeignLineStreamed(t *testing.T) {
	s := rthScanner(t)
	round := 0
	for _, kindFirst := range []bool{false, true} {
		for _, size := range []int{600, 6 << 10} {
			doc, vals := rtsSecretYAML("data", true, size)
			if !kindFirst {
				doc, vals = rtpKubectlYAML(size)
			}
			round++
			for i, fl := range []string{"W1124 warning: something", "Warning: resource secrets/db is missing an annotation", "E1124 22:33:44.123456   1 memcache.go:265] couldn't get current server API group list"} {
				if raceDetector && i != round%3 {
					continue // under -race each document takes one of the lines, in turn
				}
				for _, every := range []int{1, 3} {
					in := rtpInterleave(doc, fl, every)
					for _, c := range []int{1, 17, 64, 4096} {
						if size > 600 && c < 17 {
							continue
						}
						if v, leaked := rtsLeaked(rtsStream(t, s, in, c), vals); leaked {
							t.Fatalf("kind first %v, %d bytes, %q after every %d entries, messages of %d: %s reached the client", kindFirst, size, fl, every, c, v)
						}
					}
				}
			}
		}
	}
}

// A line per message (bufio.Scanner's Text: no line break): the stream
// is read with one at each boundary.
func TestRedTeamRTP_ForeignLinePerMessage(t *testing.T) {
	s := rthScanner(t)
	doc, vals := rtpKubectlYAML(6 << 10)
	in := rtpInterleave(doc, "W1124 warning: something", 2)
	for _, nl := range []bool{true, false} {
		var msgs []string
		for _, line := range strings.SplitAfter(in, "\n") {
			if !nl {
				line = strings.TrimSuffix(line, "\n")
			}
			if line != "" {
				msgs = append(msgs, line)
			}
		}
		if v, leaked := rtsLeaked(rtpSend(t, s, msgs), vals); leaked {
			t.Fatalf("line breaks %v: %s reached the client", nl, v)
		}
	}
}

// Near misses: what follows a Secret's block and ends it goes out as it
// is, streamed.
func TestRedTeamRTP_ForeignLineStreamedNearMisses(t *testing.T) {
	s := rthScanner(t)
	doc, _ := rtsSecretYAML("data", true, 600)
	cm := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  level: info\n  mode: production\n"
	tail := "type: Opaque\nmetadata:\n  labels:\n    app: web\n"
	for _, after := range []string{cm, "W1124 warning: something\n" + cm, tail, "W1124 warning: something\n" + tail} {
		for _, c := range []int{1, 17, 4096} {
			out := rtsStream(t, s, doc+after, c)
			if !strings.HasSuffix(out, strings.TrimPrefix(after, "W1124 warning: something\n")) {
				t.Fatalf("messages of %d: what follows the Secret was redacted:\n%s", c, out[max(0, len(out)-300):])
			}
		}
	}
}

// Red team rtp: a ConfigMap of base64 values (a CA bundle) streamed with
// its kind first was taken for a Secret (kubernetes-data-base64) and its
// data redacted; it now goes out as it is (dlp's otherKind), with metadata
// of any size before its data block (that case held before: once the kind
// line has left the kept end, so has the apiVersion that
// kubernetes-data-base64 needs). Written as
// kubectl prints it (data, then kind), in one message it goes out as it
// is (the veto of dlp's otherKind); cut inside its data block, the
// entries sent before the kind line are redacted: a documented leftover,
// the kind that tells them apart comes after them, and the stream cannot
// take back what it let through, so it reads them as a Secret's.
func TestRedTeamRTP_ConfigMapStreamed(t *testing.T) {
	s := rthScanner(t)
	doc, _ := rtpKubectlYAML(2 << 10)
	entries := doc[strings.Index(doc, "data:\n"):strings.Index(doc, "kind: Secret")]
	for _, meta := range []int{100, 5 << 10} {
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    note: " + strings.Repeat("lorem ipsum ", meta/12) + "\n  name: ca\n" + entries
		for _, c := range []int{17, 500, 4096} {
			if out := rtsStream(t, s, cm, c); out != cm {
				t.Fatalf("metadata of %d, messages of %d: the ConfigMap was redacted:\n%.300s", meta, c, out[strings.Index(out, "data:"):])
			}
		}
	}
	// The same stream of a Secret is redacted.
	secret, vals := rtpKubectlYAML(2 << 10)
	secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    note: " + strings.Repeat("lorem ipsum ", 5<<10/12) + "\n  name: ca\n" + secret[strings.Index(secret, "data:\n"):]
	for _, c := range []int{17, 500, 4096} {
		if v, leaked := rtsLeaked(rtsStream(t, s, secret, c), vals); leaked {
			t.Fatalf("messages of %d: %s reached the client", c, v)
		}
	}
	// kubectl's order.
	cm := strings.Replace(doc, "kind: Secret", "kind: ConfigMap", 1)
	if out := rtsStream(t, s, cm, len(cm)); out != cm {
		t.Fatalf("in one message, the ConfigMap was redacted:\n%.300s", out)
	}
	out := rtsStream(t, s, cm, 500)
	if out == cm || !strings.Contains(out, "[REDACTED:kubernetes-data-base64]") || !strings.HasSuffix(out, "kind: ConfigMap\nmetadata:\n  name: db\ntype: Opaque\n") {
		t.Fatalf("leftover changed: cut inside its data block, the ConfigMap's entries sent before its kind are redacted, the rest goes out:\n%s", out)
	}
}
