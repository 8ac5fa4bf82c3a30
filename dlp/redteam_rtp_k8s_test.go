package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rtp: a command's stderr interleaved with its stdout (kubectl's
// klog warnings, a timestamped log line, "Warning: ..." at column 0)
// between two entries of a Secret's data block ended the block, and the
// entries after it went out in the clear, in every form of the block:
// kind first, kubectl's data first, stringData, and the base64 entries
// without their kind.

const rtpB64 = "c2VjcmV0LXZhbHVlLW51bWJlci0wMDAwMDAwMDAwMDA="

// rtpForeign are stderr lines a tool's output may carry between two lines
// of a manifest.
var rtpForeign = []string{
	"W1124 warning: something",
	"W1124 22:33:44.123456   12345 warnings.go:70] v1 Secret is deprecated",
	"I1124 22:33:44.123456   12345 request.go:700] Waited for 1.0s due to client-side throttling",
	"E1124 22:33:44.123456   12345 memcache.go:265] couldn't get current server API group list",
	"Warning: resource secrets/db is missing the kubectl.kubernetes.io/last-applied-configuration annotation",
	"error: the server doesn't have a resource type \"secretz\"",
	"2026-11-24T22:33:44Z INFO reconciling secret",
	"22:33:44 warn slow response",
	"time=\"2026-11-24T22:33:44Z\" level=warning msg=\"retrying\"",
	"level=info msg=retry",
	"[WARNING] cluster unreachable",
	"INFO: retrying",
}

func TestRedTeamRTP_ForeignLineInDataBlock(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fl := range rtpForeign {
		for name, doc := range map[string]string{
			"kind-first":              "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  a: " + rtpB64 + "\n" + fl + "\n  b: " + rtpB64 + "\n",
			"kind-first-before-first": "apiVersion: v1\nkind: Secret\ndata:\n" + fl + "\n  a: " + rtpB64 + "\n",
			"stringData":              "stringData:\n  a: hunter2-but-longer\n" + fl + "\n  b: " + rtpB64 + "\n",
			"kubectl":                 "apiVersion: v1\ndata:\n  a: " + rtpB64 + "\n" + fl + "\n" + fl + "\n  b: " + rtpB64 + "\nkind: Secret\nmetadata:\n  name: db\n",
			"kubectl-no-kind":         "apiVersion: v1\ndata:\n  a: " + rtpB64 + "\n" + fl + "\n  b: " + rtpB64 + "\n",
			"list": "apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    a: " + rtpB64 + "\n" + fl + "\n    b: " + rtpB64 +
				"\n  kind: Secret\n  metadata:\n    name: db\nkind: List\n",
		} {
			out, _ := s.Redact(doc)
			if strings.Contains(out, rtpB64[:20]) {
				t.Errorf("%s, %q between entries: a value went out:\n%s", name, fl, out)
			}
		}
	}
}

// TestRedTeamRTP_ForeignLineNearMisses: what ends a data block still ends
// it, and a foreign line after the block's last entry stays as it is.
func TestRedTeamRTP_ForeignLineNearMisses(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ doc, keep string }{
		{"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\ntype: Opaque\nmetadata:\n  name: db-credentials\n  labels:\n    app: web\n", "  name: db-credentials\n  labels:\n    app: web\n"},
		{"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\n---\nW1124 warning: something\napiVersion: v1\nkind: ConfigMap\ndata:\n  level: info\n  mode: production\n", "  level: info\n  mode: production\n"},
		{"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\n---\napiVersion: v1\nkind: ConfigMap\ndata:\nW1124 warning: something\n  level: info\n", "  level: info\n"},
		{"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\nW1124 warning: something\n", "W1124 warning: something\n"},
		{"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\nThen apply it with\n  kubectl apply -f secret.yaml\n", "  kubectl apply -f secret.yaml\n"},
		{"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\n```\nW1124 warning: something\n  indented: code\n", "  indented: code\n"},
		{"apiVersion: v1\ndata:\n  level: info\nW1124 warning: something\n  mode: production\nkind: ConfigMap\n", "  level: info\nW1124 warning: something\n  mode: production\n"},
		{"apiVersion: v1\ndata:\n  a: " + rtpB64 + "\nkind: Secret\nWarning: deprecated\n  b: not-a-secret-entry\n", "  b: not-a-secret-entry\n"},
	} {
		out, _ := s.Redact(c.doc)
		if strings.Contains(out, rtpB64[:20]) {
			t.Errorf("the Secret's value went out:\n%s", out)
		}
		if !strings.Contains(out, c.keep) {
			t.Errorf("%q was redacted:\n%s", c.keep, out)
		}
	}
}

// Red team rtp: a ConfigMap whose values are all padded base64 (a CA
// bundle, a keystore) was taken for a Secret by kubernetes-data-base64,
// which reads a data block of base64 values without looking at the kind
// of its object, written before or after the block: redacted. A Secret's
// block, and one whose kind is not in sight, still are.
func TestRedTeamRTP_ConfigMapBase64(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := "  ca.b64: " + rtpB64 + "\n  keystore: " + rtpB64 + "\n"
	for _, doc := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n" + entries,
		"apiVersion: v1\ndata:\n" + entries + "kind: ConfigMap\nmetadata:\n  name: x\n",
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n  " + strings.ReplaceAll(entries, "\n  ", "\n    ") + "  kind: ConfigMap\n  metadata:\n    name: x\nkind: List\n",
		"apiVersion: v1\nkind: Secret\ndata:\n  a: " + rtpB64 + "\n---\napiVersion: v1\ndata:\n" + entries + "kind: ConfigMap\n",
		"apiVersion: v1\nkind: 'ConfigMap' # cas\nmetadata:\n  annotations:\n    note: " + strings.Repeat("x", 3000) + "\ndata:\n" + entries,
	} {
		out, _ := s.Redact(doc)
		if !strings.Contains(out, entries) && !strings.Contains(out, strings.ReplaceAll(entries, "\n  ", "\n    ")[2:]) {
			t.Errorf("a ConfigMap's data was redacted:\n%.400s", out)
		}
	}
	for _, doc := range []string{
		"apiVersion: v1\ndata:\n" + entries,
		"apiVersion: v1\ndata:\n" + entries + "kind: Secret\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n---\napiVersion: v1\ndata:\n" + entries,
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n- apiVersion: v1\n  data:\n  " + strings.ReplaceAll(entries, "\n  ", "\n    ") + "  kind: Secret\n",
	} {
		if out, _ := s.Redact(doc); strings.Contains(out, rtpB64[:20]) {
			t.Errorf("a Secret's value went out:\n%s", out)
		}
	}
}

// The veto of kubernetes-data-base64 read any kind line's first word, and
// an empty one or a word run into something else counted as another
// kind: a Secret whose kind is spelled with a YAML escape or tag, or not
// as a plain word, had its block let through (found when the agreement
// tests met "kind: \u0053ecret"). Only a plainly written other kind
// vetoes now.
func TestRedTeamRTP_VetoNeedsAPlainKind(t *testing.T) {
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := "  ca.b64: " + rtpB64 + "\n  keystore: " + rtpB64 + "\n"
	for _, kind := range []string{
		`"\u0053ecret"`, `"\x53ecret"`, `!!str Secret`, `=Secret`, `"Secret`, `'Secret"`,
		`Sec\ret`, `Secret{}`, `&k Secret`, `{Secret}`, `"ConfigMap" x`, `ConfigMap x`,
	} {
		for _, doc := range []string{
			"apiVersion: v1\ndata:\n" + entries + "kind: " + kind + "\nmetadata:\n  name: db\n",
			"apiVersion: v1\nkind: " + kind + "\ndata:\n" + entries,
		} {
			if out, _ := s.Redact(doc); strings.Contains(out, rtpB64[:20]) {
				t.Errorf("kind %s: a Secret's value went out:\n%s", kind, out)
			}
		}
	}
	for _, kind := range []string{`ConfigMap`, `"ConfigMap"`, `'ConfigMap'`, `ConfigMap # x`, "ConfigMap\t", `"ConfigMap"  # x`} {
		doc := "apiVersion: v1\ndata:\n" + entries + "kind: " + kind + "\nmetadata:\n  name: x\n"
		if out, _ := s.Redact(doc); !strings.Contains(out, entries) {
			t.Errorf("kind %q: a ConfigMap's data was redacted:\n%s", kind, out)
		}
	}
}
