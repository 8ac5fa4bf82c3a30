package gatehouse

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rts: a Kubernetes Secret's YAML streamed in log messages (kubectl
// get secret -o yaml piped line by line, or in chunks of any size) went out
// in the clear past the kept end of the stream: the kept end of an open
// data block was its entries, without the "kind: Secret" and "data:" lines
// that made them a Secret's, so the next message's entries matched no
// rule. A stringData block was recognized only after its kind.

// rtsSecretYAML returns a Secret manifest whose data block (under field,
// after kind when kindFirst) is about size bytes, and its values.
func rtsSecretYAML(field string, kindFirst bool, size int) (string, []string) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\n")
	if kindFirst {
		b.WriteString("kind: Secret\nmetadata:\n  name: db\n  namespace: prod\ntype: Opaque\n")
	}
	b.WriteString(field + ":\n")
	var vals []string
	for i := 0; b.Len() < size; i++ {
		h := sha256.Sum256([]byte(field + strconv.Itoa(i)))
		v := base64.StdEncoding.EncodeToString(h[:]) + base64.StdEncoding.EncodeToString(h[:15])
		vals = append(vals, v)
		fmt.Fprintf(&b, "  key-%d: %s\n", i, v)
	}
	b.WriteString("immutable: false\n")
	return b.String(), vals
}

// rtsStream sends doc as log messages of chunk bytes and returns what
// reached the client, the texts joined.
func rtsStream(t *testing.T, s *dlp.Scanner, doc string, chunk int) string {
	t.Helper()
	var msgs []string
	for rest := doc; rest != ""; {
		n := min(chunk, len(rest))
		msgs = append(msgs, rest[:n])
		rest = rest[n:]
	}
	return rtpSend(t, s, msgs)
}

// rtsLeaked returns the first value of which a part reached the client.
func rtsLeaked(out string, vals []string) (string, bool) {
	for _, v := range vals {
		for _, part := range []string{v[:16], v[20:36], v[len(v)-16:]} {
			if strings.Contains(out, part) {
				return v, true
			}
		}
	}
	return "", false
}

func TestRedTeamRTS_SecretDataStreamed(t *testing.T) {
	s := rthScanner(t)
	for _, size := range []int{600, 4 << 10, 8 << 10, 64 << 10} {
		for _, field := range []string{"data", "stringData"} {
			doc, vals := rtsSecretYAML(field, true, size)
			chunks := []int{61, 1000, 4095, 4096, 4097, 6000, 16 << 10}
			switch size {
			case 600: // every size, each cut of the lines
				chunks = chunks[:0]
				for c := 1; c <= 64; c++ {
					if !raceDetector || c%8 == 5 {
						chunks = append(chunks, c)
					}
				}
			case 8 << 10:
				chunks = append(chunks, 7)
			}
			for _, c := range chunks {
				if raceDetector && size >= 8<<10 && c != 4097 {
					continue // thousands of messages, each scanning the 4 KiB kept end
				}
				if v, leaked := rtsLeaked(rtsStream(t, s, doc, c), vals); leaked {
					t.Fatalf("%s block of %d bytes in messages of %d: %s reached the client", field, size, c, v)
				}
			}
		}
	}
}

// stringData is a Secret's only: it is redacted without a kind before it
// (kubectl apply's input, kind after or in another message long gone).
func TestRedTeamRTS_StringDataWithoutKind(t *testing.T) {
	s := rthScanner(t)
	doc, vals := rtsSecretYAML("stringData", false, 8<<10)
	doc += "kind: Secret\n"
	for _, c := range []int{7, 100, 4096, 5000, len(doc)} {
		if raceDetector && c < 100 {
			continue // as in TestRedTeamRTS_SecretDataStreamed
		}
		if v, leaked := rtsLeaked(rtsStream(t, s, doc, c), vals); leaked {
			t.Fatalf("messages of %d: %s reached the client", c, v)
		}
	}
}

// Near misses: a ConfigMap's data and a data key in other YAML go out as
// they are, however they are cut.
func TestRedTeamRTS_StreamedNearMisses(t *testing.T) {
	s := rthScanner(t)
	var cm strings.Builder
	cm.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n")
	for i := 0; cm.Len() < 8<<10; i++ {
		fmt.Fprintf(&cm, "  setting-%d: log level info, retry %d times, feature flags new-ui and beta-search\n", i, i%7)
	}
	other := "service:\n  data:\n    retention: 30d\n    path: /var/lib/app\n  replicas: 3\n"
	for _, doc := range []string{cm.String(), other, strings.Repeat(other, 200)} {
		for _, c := range []int{5, 333, 4096, 5000} {
			if out := rtsStream(t, s, doc, c); out != doc {
				t.Fatalf("messages of %d: redacted:\n%.300s", c, out)
			}
		}
	}
}
