package dlp_test

import (
	"strings"
	"testing"
)

// Red team rud: what a line an attacker controls in a Secret's output can
// and cannot do (a log line of another process interleaved, an injected
// kind line), and the veto's reach.

// TestRedTeamRUD_InjectedKindLine: a "kind: ConfigMap" line injected
// between kubectl's data block and its "kind: Secret" line (or in a List
// before the Secret's item, or far away) does not let the Secret's values
// through: the kind line after the block still makes it a Secret's, and a
// kind too far to read makes the block a Secret's (fail closed). HELD.
func TestRedTeamRUD_InjectedKindLine(t *testing.T) {
	s := rudScanner(t)
	entries := "  tls.key: " + rtpB64 + "\n  conn: YWRtaW4=\n"
	for _, doc := range []string{
		"apiVersion: v1\ndata:\n" + entries + "kind: ConfigMap\nkind: Secret\nmetadata:\n  name: db\n",
		"apiVersion: v1\ndata:\n" + entries + "W1124 x\nkind: ConfigMap\nkind: Secret\n",
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    ca: " + rtpB64 + "\n  kind: ConfigMap\n- apiVersion: v1\n  data:\n  " +
			strings.ReplaceAll(entries, "\n  ", "\n    ") + "  kind: Secret\nkind: List\n",
		"apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Secret\ndata:\n" + entries,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    x: |\n      " + strings.Repeat("y", 9<<10) + "\ndata:\n" + entries + "kind: Secret\n",
		"apiVersion: v1\r\ndata:\r\n" + strings.ReplaceAll(entries, "\n", "\r\n") + "kind: Secret\r\n",
	} {
		if out, _ := s.Redact(doc); strings.Contains(out, rtpB64[:20]) && !strings.Contains(doc, "ca: "+rtpB64) || strings.Contains(out, "YWRtaW4=") {
			t.Errorf("a Secret's value went out:\n%s", out[max(0, len(out)-400):])
		}
	}
}

// TestRedTeamRUD_ForeignLineAbuse is a documented leftover. A line at
// column 0 that is no log line (another process's output, "pod/web-1
// Running") between two entries of a Secret's data block ends the block,
// as prose after a manifest must: the entries after it are read only by
// the rules of their own names (a password is, a value under a neutral
// name is not). And an indented line after a log line that follows a
// Secret's block is read as the block's (redacted): a log line between two
// entries must not end the block (red team rtp), and an indented line
// after it cannot be told from an entry.
func TestRedTeamRUD_ForeignLineAbuse(t *testing.T) {
	s := rudScanner(t)
	doc := "apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\npod/web-1 Running\n  conn: " + rudPlain + "\n  password: " + rudPlain + "\n"
	out, _ := s.Redact(doc)
	if strings.Contains(out, rtpB64[:20]) || !strings.Contains(out, "conn: "+rudPlain) || strings.Contains(out, "password: "+rudPlain) {
		t.Errorf("the block after a line at column 0 is read otherwise now: update this test:\n%s", out)
	}
	doc = "apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\nW1124 12:00:00.000000 1 x.go:1] retry\n  indented: ordinary text\n"
	if out, _ := s.Redact(doc); strings.Contains(out, "indented: ordinary text") {
		t.Errorf("an indented line after a log line after the block is read otherwise now: update this test:\n%s", out)
	}
}

// Red team rud: a Secret written metadata, data, then kind (a hand-made
// manifest, yq's output) had kubernetes-secret-data-listed's match start
// at "metadata:" (it ends in "data:") and run on to the kind line; its
// Exclude (metadata's entries) dropped it, and the data block inside it
// was never read: values that only that rule reads (short base64, plain
// text) went out.
func TestRedTeamRUD_MetadataBeforeData(t *testing.T) {
	s := rudScanner(t)
	for _, meta := range []string{"metadata:\n  name: db\n", "metadata:\n  name: db\n  labels:\n    app: web\n", "  metadata:\n    name: db\n"} {
		for _, entries := range []string{"  conn: YWRtaW4=\n", "  conn: " + rudPlain + "\n  user: YWRtaW4=\n"} {
			doc := "apiVersion: v1\n" + meta + "data:\n" + entries + "kind: Secret\n"
			if strings.HasPrefix(meta, "  ") {
				doc = "items:\n- apiVersion: v1\n" + meta + "  data:\n  " + strings.ReplaceAll(entries, "\n  ", "\n    ") + "  kind: Secret\n"
			}
			if out, _ := s.Redact(doc); strings.Contains(out, "YWRtaW4=") || strings.Contains(out, rudPlain) {
				t.Errorf("a Secret's value went out:\n%s", out)
			}
		}
	}
	// Near miss: a ConfigMap in that order.
	doc := "apiVersion: v1\nmetadata:\n  name: cfg\ndata:\n  level: info\nkind: ConfigMap\n"
	if out, _ := s.Redact(doc); out != doc {
		t.Errorf("a ConfigMap was changed:\n%s", out)
	}
}
