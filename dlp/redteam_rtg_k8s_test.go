package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team of the Kubernetes rules (rtg): the data-before-kind rule let the
// gap between a data block and "kind: Secret" run across list items, so in
// kubectl get configmap,secret -o yaml a ConfigMap's data was redacted as
// the Secret's, and the match, running to the Secret's kind, swallowed the
// Secret's own data block unredacted: the TLS key reached the reader while
// log_level was hidden. The kind-first rule crossed a YAML document
// separator the same way.
func TestRedTeamRTG_KubernetesSecretAfterConfigMap(t *testing.T) {
	s := builtinScanner(t, nil)
	key := "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2Z0lCQURBTkJna3Foa2lHOXcwQkFRRUZBQVNDQktnd2dnU2tBZ0VBQW9JQkFRQzdWSlRVdDlVczhjS2oKTXpFZlljaU9XQTRRNCtjMlpt"
	cm := "- apiVersion: v1\n  data:\n    log_level: info\n    feature_flags: new-ui,beta-search\n  kind: ConfigMap\n  metadata:\n    name: app-config\n"
	sec := "- apiVersion: v1\n  data:\n    tls.key: " + key + "\n  kind: Secret\n  metadata:\n    name: app-tls\n  type: kubernetes.io/tls\n"
	for name, doc := range map[string]string{
		"list":          "apiVersion: v1\nitems:\n" + cm + sec + "kind: List\n",
		"indented list": "  " + strings.ReplaceAll("apiVersion: v1\nitems:\n"+cm+sec, "\n", "\n  "),
		"CRLF":          strings.ReplaceAll("apiVersion: v1\nitems:\n"+cm+strings.Replace(sec, "\n  kind:", "\n\n  kind:", 1), "\n", "\r\n"),
	} {
		red, _ := s.Redact(doc)
		if strings.Contains(red, key[:40]) {
			t.Errorf("%s: the Secret's tls.key reached the reader:\n%s", name, red)
		}
		if !strings.Contains(red, "log_level: info") || !strings.Contains(red, "feature_flags: new-ui,beta-search") {
			t.Errorf("%s: the ConfigMap's data was redacted:\n%s", name, red)
		}
	}
}

// Near misses: a ConfigMap's data after a Secret without data, in the next
// item or the next YAML document, is kept.
func TestRedTeamRTG_KubernetesConfigMapAfterSecret(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, doc := range []string{
		"kind: Secret\nmetadata:\n  name: x\ntype: Opaque\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  log_level: info\n",
		"apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: app-tls\n  type: Opaque\n" +
			"- apiVersion: v1\n  data:\n    log_level: info\n  kind: ConfigMap\n",
	} {
		if red, f := s.Redact(doc); len(f) > 0 {
			t.Errorf("redacted:\n%s", red)
		}
	}
}

// kubectl apply keeps the whole object in the
// kubectl.kubernetes.io/last-applied-configuration annotation, as a JSON
// string: kubectl get secret -o json printed the Secret's data redacted and
// again, escaped, in the annotation, in the clear.
func TestRedTeamRTG_KubernetesLastAppliedConfiguration(t *testing.T) {
	s := builtinScanner(t, &dlp.Options{DetectEncoding: true})
	pw := "UzNjcjN0LVA0c3N3MHJkLTIwMjQh"
	applied := `{"apiVersion":"v1","data":{"password":"` + pw + `"},"kind":"Secret","metadata":{"annotations":{},"name":"db"},"type":"Opaque"}`
	kindFirst := `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"db"},"stringData":{"password":"` + pw + `"}}`
	esc := func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
	for name, doc := range map[string]string{
		"kubectl get -o json": "{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"password\": \"" + pw + "\"\n    },\n    \"kind\": \"Secret\",\n" +
			"    \"metadata\": {\n        \"annotations\": {\n            \"kubectl.kubernetes.io/last-applied-configuration\": \"" + esc(applied) + "\\n\"\n        },\n        \"name\": \"db\"\n    }\n}",
		"escaped twice":      `"{\"note\": \"` + strings.ReplaceAll(esc(applied), `\"`, `\\\"`) + `\"}"`,
		"escaped kind first": `"` + esc(kindFirst) + `"`,
	} {
		if red, _ := s.Redact(doc); strings.Contains(red, pw) {
			t.Errorf("%s: the password reached the reader:\n%s", name, red)
		}
	}
}
