package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtr: YAML sent as text (a Kubernetes or Compose manifest, Helm
// values, an Ansible inventory) was scanned by the text rules alone: a
// credential's name on one line and its value on the next ("- name:
// DB_PASSWORD" / "value: ..."), in a flow mapping, in a block scalar or
// under a spelling no text rule lists reached the client.

// rtrLeaks reports the text the client gets when a secret survives.
func rtrLeaks(t *testing.T, doc string) (string, bool) {
	t.Helper()
	got, n := rtqText(t, doc)
	return got, strings.Contains(got, rtmPassword) || strings.Contains(got, rtmToken) || n == 0
}

func TestRedTeamRTR_YAMLText(t *testing.T) {
	for name, doc := range map[string]string{
		"env":              "env:\n  - name: DB_PASSWORD\n    value: " + rtmPassword + "\n  - name: HOST\n    value: db.internal\n",
		"env DB_PASS":      "containers:\n- name: app\n  env:\n  - name: DB_PASS\n    value: " + rtmPassword + "\n  - name: HOST\n    value: db.internal\n",
		"value first":      "env:\n  - value: " + rtmPassword + "\n    name: DB_PASS\n  - {name: HOST, value: db.internal}\n",
		"double quoted":    "env:\n  - name: \"DB_PASS\"\n    value: \"" + rtmPassword + "\"\nhost: db.internal\n",
		"single quoted":    "env:\n  - name: 'STRIPE_SECRET'\n    value: '" + rtmToken + "'\nhost: db.internal\n",
		"flow":             "env:\n  - {name: API_KEY, value: " + rtmToken + "}\n  - {name: HOST, value: db.internal}\n",
		"flow quoted":      "env: [{\"name\": \"DB_PASS\", \"value\": \"" + rtmPassword + "\"}, {name: HOST, value: db.internal}]\n",
		"literal block":    "env:\n  - name: DB_PASS\n    value: |\n      " + rtmPassword + "\n  - name: HOST\n    value: db.internal\n",
		"strip block":      "env:\n  - name: DB_PASS\n    value: |-\n      " + rtmPassword + "\nhost: db.internal\n",
		"folded block":     "env:\n  - name: STRIPE_SECRET\n    value: >\n      " + rtmToken + "\nhost: db.internal\n",
		"comment between":  "env:\n  - name: DB_PASS\n    # the database's\n    value: " + rtmPassword + " # rotate\nhost: db.internal\n",
		"crlf":             "env:\r\n  - name: DB_PASS\r\n    value: " + rtmPassword + "\r\nhost: db.internal\r\n",
		"nested value":     "password:\n  value: " + rtmPassword + "\nhost: db.internal\n",
		"pw":               "db:\n  host: db.internal\n  pw: " + rtmPassword + "\n",
		"privKey":          "signing:\n  privKey: " + rtmToken + "\nhost: db.internal\n",
		"helm":             "auth:\n  rootPassword: " + rtmPassword + "\nprimary:\n  host: db.internal\n",
		"key/value pair":   "params:\n  - key: STRIPE_SECRET\n    val: " + rtmToken + "\nhost: db.internal\n",
		"two documents":    "apiVersion: v1\nkind: Service\nmetadata: {name: db.internal}\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - env:\n    - name: DB_PASS\n      value: " + rtmPassword + "\n",
		"fence":            "Here is the manifest for db.internal:\n\n```yaml\nenv:\n- name: DB_PASS\n  value: " + rtmPassword + "\n```\n",
		"anchor":           "defaults: &pw " + rtmPassword + "\nhost: db.internal\ndb:\n  pw: *pw\n",
		"tagged":           "db:\n  host: db.internal\n  pw: !!str " + rtmPassword + "\n",
		"number":           "db:\n  host: db.internal\n  passcode: 84736251\n",
		"cyrillic name":    "db:\n  host: db.internal\n  пароль: " + rtmPassword + "\n",
		"JSON member text": `{"manifest": "env:\n  - name: DB_PASS\n    value: ` + rtmPassword + `\nhost: db.internal\n"}`,
	} {
		if got, leak := rtrLeaks(t, doc); leak {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	// The value is written back in place; the rest stays byte for byte.
	doc := "# app\nenv:\n  - name: DB_PASS   # from vault\n    value: " + rtmPassword + "\n  - name: HOST\n    value: db.internal\n"
	got, _ := rtqText(t, doc)
	if want := strings.Replace(doc, rtmPassword, `"[REDACTED:generic-password]"`, 1); got != want {
		t.Errorf("more than the value changed:\n%q\nwant\n%q", got, want)
	}
}

// Near misses: manifests that name credentials but hold none go out byte
// for byte.
func TestRedTeamRTR_YAMLNearMisses(t *testing.T) {
	for _, doc := range []string{
		"env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password\n",
		"env:\n  - name: API_KEY\n    value: ${API_KEY}\n  - name: DB_PASS\n    value: \"{{ .Values.db.password }}\"\n",
		"env:\n  - name: DB_PASS\n    value: \"\"\n  - name: TOKEN_TTL\n    value: \"3600\"\n",
		"password_min_length: 12\npasswordChangedAt: 2026-11-24T10:00:00Z\ntokenizer: bert-base-uncased\n",
		"# password: see the vault\nauth:\n  enabled: true\n  secretName: db-credentials-v2\n",
		"secrets:\n  - db-password\n  - api-key\nkey: sort\n",
		"token_url: https://auth.example.com/oauth2/token\nmax_tokens: 4096\n",
		"the password is: not here\nand the key: elsewhere\n",
		"func f() {\n\tkey := tokens[0]\n\treturn key\n}\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%s\n->\n%s", n, doc, got)
		}
	}
}

// Block scalars nest YAML without escaping it: a text of n bytes nests
// about sqrt(2n) deep. Past the depth the walk opens, the deepest string
// that may name a credential is withheld, never sent.
func TestRedTeamRTR_YAMLDeepBlocks(t *testing.T) {
	for _, depth := range []int{3, 15, 40} {
		doc := "pw: " + rtmPassword + "\n"
		for i := 0; i < depth; i++ {
			doc = "host: db.internal\nlevel: |\n" + indent(doc, "  ")
		}
		if got, leak := rtrLeaks(t, doc); leak {
			t.Errorf("depth %d: a secret reached the client: %q", depth, got)
		}
	}
}

func indent(s, by string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = by + l
		}
	}
	return strings.Join(lines, "")
}

// A setting about passwords or a key's identifier is no credential, in
// any form a tool sends it as text (red team rtr): they went out
// redacted. The credentials beside them are still found.
func TestRedTeamRTR_SettingsAndIDsInText(t *testing.T) {
	const uuid = "3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30"
	for _, doc := range []string{
		"password_policy=strong-passwords-only\n",
		"auth:\n  password_policy: strong-passwords-only\n  api_key_id: " + uuid + "\n",
		`{"password_policy": "strong-passwords-only", "api_key_id": "` + uuid + `"}`,
		"name,api_key_id,password_policy\nci," + uuid + ",strong-passwords-only\n",
		"env:\n  - name: API_KEY_ID\n    value: " + uuid + "\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%s\n->\n%s", n, doc, got)
		}
	}
	for _, doc := range []string{
		"password_policy=strong\npassword=" + rtmPassword + "\nhost=db.internal\n",
		"auth:\n  api_key_id: " + uuid + "\n  api_key: " + rtmToken + "\nhost: db.internal\n",
		`{"api_key_id": "` + uuid + `", "api_key": "` + uuid + `", "pw": "` + rtmPassword + `", "host": "db.internal"}`,
	} {
		if got, leak := rtrLeaks(t, doc); leak || strings.Count(got, uuid) > 1 && strings.Contains(doc, `"api_key": "`+uuid) {
			t.Errorf("a secret reached the client: %q", got)
		}
	}
}
