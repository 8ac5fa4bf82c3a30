package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

// Red team rud: a Secret's data block was read only after the keys data,
// stringData and kind written plainly. YAML lets each be quoted ('data':,
// "kind": "Secret", as PyYAML and ruamel write every key with a quoting
// style), tagged (kind: !!str Secret), given a blank before its colon
// (data :) or written as an explicit key ("? data" then ":"): the values
// that no other rule reads (a plain password under a neutral name, a short
// base64 value) went out in the clear.

// rudPlain is a value no rule but a Secret's data block reads.
const rudPlain = "S3CR-hunter2-x"

func rudScanner(t testing.TB) *dlp.Scanner {
	t.Helper()
	s, err := dlp.New(dlp.Builtin(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRedTeamRUD_KeySpellings(t *testing.T) {
	s := rudScanner(t)
	kinds := []string{"kind: Secret", "'kind': 'Secret'", `"kind": "Secret"`, "kind: !!str Secret", "kind : Secret", `'kind': "Secret" # x`,
		"kind: !<tag:yaml.org,2002:str> Secret", "kind: &k Secret", `"kind" : 'Secret'`}
	datas := []string{"data:", "'data':", `"data":`, "data :", "? data\n:", "? 'data'\n:", "'stringData':", `"stringData" :`, "? stringData\n:"}
	entries := []string{"  db-url: " + rudPlain + "\n  user: YWRtaW4=\n", "  'db-url': '" + rudPlain + "'\n", `  "db-url" : "` + rudPlain + "\"\n"}
	for _, kind := range kinds {
		for _, data := range datas {
			for _, e := range entries {
				// Kind first (people, helm), then data first (PyYAML sorts
				// keys, kubectl prints them in order).
				for _, doc := range []string{
					"apiVersion: v1\n" + kind + "\nmetadata:\n  name: db\ntype: Opaque\n" + data + "\n" + e,
					"apiVersion: v1\n" + data + "\n" + e + kind + "\nmetadata:\n  name: db\ntype: Opaque\n",
					"items:\n- apiVersion: v1\n  " + strings.ReplaceAll(data, "\n", "\n  ") + "\n  " + strings.ReplaceAll(e, "\n  ", "\n    ") + "  " + kind + "\nkind: List\n",
				} {
					if !strings.HasPrefix(doc, "apiVersion: v1\n"+kind) && (strings.HasPrefix(data, "? ") || strings.Contains(kind, "&")) {
						// An explicit key's data block is read after its
						// kind only, and the Keywords of the rule that reads
						// it before its kind do not hold an anchor's name.
						continue
					}
					out, _ := s.Redact(doc)
					if strings.Contains(out, rudPlain) || strings.Contains(out, "YWRtaW4=") {
						t.Errorf("a Secret's value went out:\n%s", out)
					}
				}
			}
		}
	}
}

// TestRedTeamRUD_QuotedBase64: kubectl's data block without its kind in
// sight (streamed, the kind comes later), keys and values quoted.
func TestRedTeamRUD_QuotedBase64(t *testing.T) {
	s := rudScanner(t)
	for _, doc := range []string{
		"apiVersion: v1\n'data':\n  'tls.key': '" + rtpB64 + "'\n",
		"apiVersion: v1\n\"data\":\n  \"tls.key\": \"" + rtpB64 + "\"\n",
		"apiVersion: v1\ndata :\n  tls.key : " + rtpB64 + "\n",
		"apiVersion: v1\ndata:\n  tls.crt: " + rtpB64 + "\n  'tls.key': " + rtpB64 + "\n",
	} {
		if out, _ := s.Redact(doc); strings.Contains(out, rtpB64[:20]) {
			t.Errorf("a Secret's value went out:\n%s", out)
		}
	}
}

// TestRedTeamRUD_KeySpellingNearMisses: a ConfigMap, a Deployment's env,
// a kind that is no Secret, quoted as a Secret's would be, pass unchanged;
// a ConfigMap of base64 values whose kind is quoted is vetoed as one
// written plainly.
func TestRedTeamRUD_KeySpellingNearMisses(t *testing.T) {
	s := rudScanner(t)
	for _, doc := range []string{
		"'apiVersion': 'v1'\n'kind': 'ConfigMap'\n'data':\n  'level': 'info'\n  'mode': 'production'\n",
		"\"apiVersion\": \"v1\"\n\"data\":\n  \"level\": \"info\"\n\"kind\": \"ConfigMap\"\n",
		"apiVersion: v1\n'kind': 'ConfigMap'\n'data':\n  'ca.b64': '" + rtpB64 + "'\n",
		"apiVersion: v1\ndata:\n  ca.b64: " + rtpB64 + "\n\"kind\": \"ConfigMap\"\n",
		"apiVersion: apps/v1\n'kind': 'Deployment'\nspec:\n  template:\n    spec:\n      containers:\n      - 'env':\n        - 'name': 'LOG_LEVEL'\n          'value': 'debug'\n",
		"kind: !!str SecretStore\ndata:\n  region: eu-west-1\n",
		"The kind: Secret is where data: lives,\nand stringData: too.\n",
		"'kind': 'Secrets'\n'data':\n  'level': 'info'\n",
		"kind: SecretProviderClass\nspec:\n  parameters:\n    objects: |\n      - objectName: db\n",
	} {
		if out, _ := s.Redact(doc); out != doc {
			t.Errorf("changed:\n%s\nto\n%s", doc, out)
		}
	}
}

// TestRedTeamRUD_CompactExplicitKey is a documented leftover: an explicit
// key whose value starts on the ":" line ("? data" then ": k: v", YAML's
// compact form, which no tool writes) is not read as a data block; the
// entries are still found by the rules of their own names.
func TestRedTeamRUD_CompactExplicitKey(t *testing.T) {
	s := rudScanner(t)
	doc := "apiVersion: v1\nkind: Secret\n? data\n: db-url: " + rudPlain + "\n  password: " + rudPlain + "\n"
	out, _ := s.Redact(doc)
	if !strings.Contains(out, "db-url: "+rudPlain) || strings.Contains(out, "password: "+rudPlain) {
		t.Errorf("the compact explicit key is read otherwise now: update this test:\n%s", out)
	}
}
