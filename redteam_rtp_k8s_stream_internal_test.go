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
	for _, kindFirst := range []bool{false, true} {
		for _, size := range []int{600, 6 << 10} {
			doc, vals := rtsSecretYAML("data", true, size)
			if !kindFirst {
				doc, vals = rtpKubectlYAML(size)
			}
			for _, fl := range []string{"W1124 warning: something", "Warning: resource secrets/db is missing an annotation", "E1124 22:33:44.123456   1 memcache.go:265] couldn't get current server API group list"} {
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
