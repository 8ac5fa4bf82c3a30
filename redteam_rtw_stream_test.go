package gatehouse_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team rtw: a Kubernetes Secret streamed in log and progress messages
// (helm template's output, a manifest as written) went out in the clear
// from the first line of its data block that was not "key: value": a blank
// line, a comment, a block scalar's body, a quoted key; and when the lines
// between its kind and its data block outgrew the kept end of the stream
// (a long annotation), every entry did.

// rtwManifest returns helm template's output for a Secret whose data block
// is written in style and is about size bytes, then a Service; and the
// Secret's values.
func rtwManifest(style string, size int) (string, []string) {
	var b strings.Builder
	b.WriteString("---\n# Source: app/templates/secret.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n")
	switch style {
	case "block scalar":
		b.WriteString("stringData:\n  config.yaml: |\n")
	case "key line comment":
		b.WriteString("data: # base64\n")
	default:
		b.WriteString("data:\n")
	}
	var vals []string
	for i := 0; b.Len() < size; i++ {
		h := sha256.Sum256([]byte(style + strconv.Itoa(i)))
		v := base64.StdEncoding.EncodeToString(h[:])
		vals = append(vals, v)
		switch style {
		case "blank lines":
			fmt.Fprintf(&b, "  key-%d: %s\n\n", i, v)
		case "comments":
			fmt.Fprintf(&b, "  # entry %d\n  key-%d: %s\n", i, i, v)
		case "quoted keys":
			fmt.Fprintf(&b, "  \"key-%d\": %s\n", i, v)
		case "block scalar":
			fmt.Fprintf(&b, "    %s\n", v)
		default:
			fmt.Fprintf(&b, "  key-%d: %s\n", i, v)
		}
	}
	b.WriteString("---\n# Source: app/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: app\n")
	return b.String(), vals
}

func rtwChunks(doc string, n int) []string {
	var out []string
	for rest := doc; rest != ""; rest = rest[min(n, len(rest)):] {
		out = append(out, rest[:min(n, len(rest))])
	}
	return out
}

// rtwReceived streams doc in messages of n bytes through a guarded server
// and returns what the client received: the log messages' text and the
// progress messages'.
func rtwReceived(t *testing.T, doc string, n int) []string {
	t.Helper()
	cs, received := streamServer(t, rtwChunks(doc, n))
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("helm")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	return received()
}

func rtwLeaked(out string, vals []string) (string, bool) {
	for _, v := range vals {
		if strings.Contains(out, v[:16]) || strings.Contains(out, v[len(v)-16:]) {
			return v, true
		}
	}
	return "", false
}

func TestRedTeamRTW_StreamedSecretSpellings(t *testing.T) {
	for _, style := range []string{"blank lines", "comments", "quoted keys", "block scalar", "key line comment"} {
		for _, size := range []int{600, 6 << 10} {
			doc, vals := rtwManifest(style, size)
			for _, n := range []int{61, 1000, 4097} {
				if size < 1000 && n > 61 {
					continue
				}
				for i, out := range rtwReceived(t, doc, n) {
					if v, leaked := rtwLeaked(out, vals); leaked {
						t.Errorf("%s, %d bytes in messages of %d (%s): %s reached the client", style, size, n, []string{"log", "progress"}[i], v)
					}
					if !strings.Contains(out, "kind: Service\nmetadata:\n  name: app\n") {
						t.Errorf("%s, %d bytes in messages of %d: the Service after the Secret was redacted", style, size, n)
					}
				}
			}
		}
	}
}

// A Secret whose lines between its kind and its data block are longer
// than the kept end of the stream (an annotation of kilobytes), within the
// 16 lines the rule of a Secret written kind first reads between them and
// beyond (20 labels: its values are then found as base64 after an
// apiVersion, as in the whole text).
func TestRedTeamRTW_StreamedSecretLongHeader(t *testing.T) {
	v := "c3VwZXJzZWNyZXRwYXNzd29yZDEyMw=="
	var labels strings.Builder
	for i := range 20 {
		fmt.Fprintf(&labels, "    app.kubernetes.io/label-%d: value-%d\n", i, i)
	}
	for _, n := range []int{5 << 10, 9 << 10} {
		for _, ann := range []string{
			"  annotations:\n    description: " + strings.Repeat("lorem ipsum ", n/12) + "\n",
			"  annotations:\n    a: b\n    c: d\n    checksum/config: " + strings.Repeat("0f", n/2) + "\n",
			"  labels:\n" + labels.String() + "  annotations:\n    description: " + strings.Repeat("lorem ipsum ", n/12) + "\n",
		} {
			doc := "apiVersion: v1\nkind: Secret\nmetadata:\n" + ann + "  name: db\ntype: Opaque\ndata:\n  app.conf: " + v + "\n  user: YWRtaW4=\n"
			for _, c := range []int{100, 1000, 4096} {
				for _, out := range rtwReceived(t, doc, c) {
					if strings.Contains(out, v[4:20]) {
						t.Errorf("%d bytes of annotation, messages of %d: the value reached the client", n, c)
					}
				}
			}
		}
	}
}

// Near misses: a ConfigMap written the same ways, and ordinary logs, reach
// the client as they were sent.
func TestRedTeamRTW_StreamedNearMisses(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  annotations:\n    description: " + strings.Repeat("lorem ipsum ", 500) + "\ndata:\n" +
		strings.Repeat("  # tuning\n  log_level: info\n\n  \"feature.flags\": new-ui,beta-search\n  app.yaml: |\n    retries: 3\n    mode: fast\n", 40)
	logs := strings.Repeat("2026-11-24T10:00:00Z info request served in 3ms\n\n  at handler.go:42\n# comment\n", 80)
	empty := "apiVersion: v1\nkind: Secret\nmetadata:\n  annotations:\n    description: " + strings.Repeat("lorem ipsum ", 500) + "\n  name: empty\ntype: Opaque\n" +
		"---\napiVersion: v1\nkind: ConfigMap\ndata:\n  level: info\n  mode: fast\n"
	listed := "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    annotations:\n      description: " + strings.Repeat("lorem ipsum ", 500) + "\n    name: empty\n" +
		"- apiVersion: v1\n  data:\n    level: info\n    mode: fast\n  kind: ConfigMap\nkind: List\n"
	for _, doc := range []string{cm, logs, empty, listed} {
		for _, n := range []int{61, 1000, 4097} {
			for i, out := range rtwReceived(t, doc, n) {
				if out != doc {
					t.Errorf("messages of %d (%s): changed:\n%.300s", n, []string{"log", "progress"}[i], out)
				}
			}
		}
	}
}
