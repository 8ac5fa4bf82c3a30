package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rtw: a Kubernetes Secret's data block was read as kubectl prints
// it, one "key: value" line after another, and ended at the first line of
// another shape. A Secret as people and templates write it went out in the
// clear from that line on: an entry after a blank line (helm template
// leaves one where an {{ if }} was), after a comment, under a quoted key or
// "key : value", a multi-line value ("config.yaml: |" and the file under
// it, "key:" and its value on the next line), a block whose key line has a
// comment, an anchor or a tag, and a block in flow style
// ("data: {password: ...}"), and all of them after a kind line with a
// comment ("kind: Secret # managed by helm").

const (
	rtwV1 = "c3VwZXJzZWNyZXRwYXNzd29yZDEyMw=="
	rtwV2 = "bm90aGVyU2VjcmV0VmFsdWU5OTk4ODc="
)

// rtwSecret is a Secret written kind first (as helm template writes it),
// whose data block (under key, "data:" then the rest of its line) is body.
func rtwSecret(key, body string) string {
	return "---\n# Source: app/templates/secret.yaml\napiVersion: v1\nkind: Secret # managed by helm\nmetadata:\n  name: db\n  labels:\n    app.kubernetes.io/name: app\ntype: Opaque\n" +
		key + body + "---\n# Source: app/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: app\n"
}

var rtwSpellings = map[string]string{
	"blank line":          "data:\n  a: " + rtwV1 + "\n\n  b: " + rtwV2 + "\n",
	"blank lines, spaces": "data:\n  a: " + rtwV1 + "\n  \n\n  b: " + rtwV2 + "\n\n",
	"comment":             "data:\n  # the database\n  a: " + rtwV1 + "\n# rotated monthly\n  b: " + rtwV2 + "\n",
	"quoted keys":         "data:\n  \"a\": " + rtwV1 + "\n  'b.key': " + rtwV2 + "\n",
	"space before colon":  "data:\n  a : " + rtwV1 + "\n  b : " + rtwV2 + "\n",
	"value on next line":  "data:\n  a:\n    " + rtwV1 + "\n  b:\n    " + rtwV2 + "\n",
	"block scalar":        "stringData:\n  config.yaml: |\n    " + rtwV1 + "\n    " + rtwV2 + "\n",
	"folded scalar":       "stringData:\n  token: >-\n    " + rtwV1 + "\n    " + rtwV2 + "\n",
	"key line comment":    "data: # base64\n  a: " + rtwV1 + "\n  b: " + rtwV2 + "\n",
	"anchor":              "data: &creds\n  a: " + rtwV1 + "\n  b: " + rtwV2 + "\n",
	"tag":                 "data: !!map\n  a: " + rtwV1 + "\n  b: " + rtwV2 + "\n",
	"flow":                "data: {a: " + rtwV1 + ", b: " + rtwV2 + "}\n",
	"flow over lines":     "data: {\n  a: " + rtwV1 + ",\n  b: " + rtwV2 + "\n}\n",
	"crlf and blank":      "data:\r\n  a: " + rtwV1 + "\r\n\r\n  b: " + rtwV2 + "\r\n",
	"tabs":                "data:\n\ta: " + rtwV1 + "\n\n\tb: " + rtwV2 + "\n",
	"list in a file":      "stringData:\n  users.yaml: |\n    users:\n    - name: admin\n      key: " + rtwV1 + "\n    - name: ci\n      key: " + rtwV2 + "\n",
	"short values":        "data:\n  a: YWRtaW4=\n\n  b: " + rtwV2 + "\n",
}

func TestRedTeamRTW_SecretBlockSpellings(t *testing.T) {
	s := builtinScanner(t, nil)
	for name, body := range rtwSpellings {
		key, body, _ := strings.Cut(body, "\n")
		doc := rtwSecret(key+"\n", body+"\n")
		if strings.HasPrefix(key, "data: {") || strings.HasPrefix(key, "stringData: {") {
			doc = rtwSecret(key+"\n"+body, "")
		}
		red, f := s.Redact(doc)
		if strings.Contains(red, rtwV1) || strings.Contains(red, rtwV2) || strings.Contains(red, "YWRtaW4=") {
			t.Errorf("%s: a value went out: %v\n%s", name, f, red)
		}
		if !strings.Contains(red, "kind: Service") || !strings.Contains(red, "name: app\n") {
			t.Errorf("%s: the next document was redacted too:\n%s", name, red)
		}
		// stringData needs no kind before it.
		if strings.HasPrefix(key, "data") {
			key = "string" + strings.ToUpper(key[:1]) + key[1:]
		}
		if red, _ := s.Redact("apiVersion: v1\n" + key + "\n" + body); strings.Contains(red, rtwV1) || strings.Contains(red, rtwV2) {
			t.Errorf("%s as stringData without its kind: a value went out:\n%s", name, red)
		}
	}
}

// The spellings across the cut of a chunked scan's first round: the round
// ends before the Secret's kind, whichever line of the block crosses it.
func TestRedTeamRTW_SecretBlockSpellingsAcrossRounds(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{ChunkSize: 2048, Overlap: 256})
	for name, body := range rtwSpellings {
		key, body, _ := strings.Cut(body, "\n")
		doc := rtwSecret(key+"\n", body+"\n")
		for pre := 1500; pre < 2100; pre += 23 {
			red, _ := s.Redact(strings.Repeat(" filler line\n", pre/13) + doc)
			if strings.Contains(red, rtwV1) || strings.Contains(red, rtwV2) {
				t.Fatalf("%s after %d bytes: a value went out", name, pre)
			}
		}
	}
}

// Near misses: a ConfigMap's data written the same ways, a Secret without
// data, and the document after a Secret go out as they are.
func TestRedTeamRTW_SecretBlockNearMisses(t *testing.T) {
	s := builtinScanner(t, nil)
	for name, body := range rtwSpellings {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n" + strings.NewReplacer(rtwV1, "info", rtwV2, "retry three times", "stringData", "data").Replace(body)
		if red, f := s.Redact(doc); red != doc {
			t.Errorf("ConfigMap, %s: redacted %v:\n%s", name, f, red)
		}
	}
	for _, doc := range []string{
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: empty\ntype: Opaque\n\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  level: info\n",
		"kind: Secret\nstringData: {}\n",
		"stringData:\n\nkind: Secret\n",
		"stringData:\n# nothing yet\nkind: Secret\n",
		"kind: Secret\ndata:\n  a: " + rtwV1 + "\nkind: ConfigMap\n---\nkind: ConfigMap\ndata:\n  level: info\n\n  mode: fast\n",
		"items:\n  - apiVersion: v1\n    kind: Secret\n    data:\n      a: " + rtwV1 + "\n  - apiVersion: v1\n    kind: ConfigMap\n    data:\n      level: info\n\n      mode: fast\n",
		"items:\n  - kind: Secret\n    stringData:\n      a: |\n        - " + rtwV1 + "\n  - kind: ConfigMap\n    data:\n      level: info\n\n      mode: fast\n",
	} {
		red, _ := s.Redact(doc)
		if strings.Contains(doc, rtwV1) {
			cm := doc[strings.LastIndex(doc, "kind: ConfigMap"):]
			if strings.Contains(red, rtwV1) || !strings.HasSuffix(red, cm) {
				t.Errorf("redacted wrong:\n%s", red)
			}
			continue
		}
		if red != doc {
			t.Errorf("redacted:\n%s", red)
		}
	}
}
