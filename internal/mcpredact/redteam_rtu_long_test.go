package mcpredact_test

import (
	"math/rand"
	"strings"
	"testing"
)

// Red team rtu: the generic rules' quoted values end within 128 bytes (a
// password's) or 256 (a secret's), and their unquoted ones within 512: a
// password or key longer than that under its name matched no rule and
// reached the client whole ({"password": "<200 characters>"}), or past
// the rule's longest match ("client_secret: <600 characters>", whose
// redacted head the YAML reading took for the whole value).
func TestRedTeamRTU_LongValuesUnderTheirNames(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for _, n := range []int{200, 300, 600, 2000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[r.Intn(len(alnum))]
		}
		v := string(b)
		for name, doc := range map[string]string{
			"json password":      `{"password": "` + v + `", "host": "db.internal"}`,
			"json client_secret": `{"client_secret": "` + v + `", "host": "db.internal"}`,
			"json privKey":       `{"signing": {"privKey": "` + v + `"}, "host": "db.internal"}`,
			"json pair":          `{"env": [{"name": "DB_PASS", "value": "` + v + `"}], "host": "db.internal"}`,
			"yaml pw":            "db:\n  pw: " + v + "\nhost: db.internal\n",
			"yaml client_secret": "client_secret: " + v + "\nhost: db.internal\n",
			"ini pw":             "[db]\npw = " + v + "\nhost = db.internal\n",
			"csv password":       "user,password\nadmin," + v + "\nhost,db.internal\n",
		} {
			got, f := rtqText(t, doc)
			if strings.Contains(got, v[:24]) || strings.Contains(got, v[n-24:]) || f == 0 {
				t.Errorf("%d bytes, %s: a secret reached the client (%d findings): %.160q", n, name, f, got)
			} else if !strings.Contains(got, "db.internal") {
				t.Errorf("%d bytes, %s: more than the secret changed: %.160q", n, name, got)
			}
		}
	}
	// In text, past a rule's longest match: the rest of the word goes too,
	// and the text keeps its layout.
	v := strings.Repeat("k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks", 40)
	for doc, want := range map[string]string{
		"> X-Api-Key: " + v + "\n> Host: db.internal\n":                             "> X-Api-Key: [REDACTED:generic-secret-unquoted]\n> Host: db.internal\n",
		"ran with CLIENT_SECRET=" + v + " on db.internal\n":                         "ran with CLIENT_SECRET=[REDACTED:generic-secret-unquoted] on db.internal\n",
		"Authorization: Bearer " + v + "\nHost: db.internal\n":                      "Authorization: Bearer [REDACTED:authorization-bearer]\nHost: db.internal\n",
		"curl -H 'Authorization: Bearer " + v + "' https://db.internal/\n":          "curl -H 'Authorization: Bearer [REDACTED:authorization-bearer]' https://db.internal/\n",
		`{"headers": {"Authorization": "Bearer ` + v + `"}, "host": "db.internal"}`: `{"headers":{"Authorization":"Bearer [REDACTED:authorization-bearer]"},"host":"db.internal"}`,
	} {
		if got, _ := rtqText(t, doc); got != want {
			t.Errorf("%.60q: got %.200q, want %q", doc, got, want)
		}
	}
	// Near misses: long references under the same names.
	long := strings.Repeat("segment-", 40)
	for _, doc := range []string{
		`{"password": "${` + strings.Repeat("VAULT_", 40) + `}", "host": "db.internal"}`,
		`{"client_secret": "https://vault.example.com/v1/` + long + `", "host": "db.internal"}`,
		`{"secret": "projects/p/secrets/` + long + `/versions/latest"}`,
		"db:\n  pw: /run/secrets/" + long + "\n",
		`{"password": "` + strings.Repeat("see the vault ", 20) + `"}`,
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%.200q\n->\n%.200q", n, doc, got)
		}
	}
}
