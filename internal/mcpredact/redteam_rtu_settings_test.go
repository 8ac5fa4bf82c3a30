package mcpredact_test

import (
	"strings"
	"testing"
)

// Red team rtu: a name that classify read as a setting about a credential
// or its identifier (pw_type, privKeyId, token_ref, a column password_id)
// was no credential's name, and its value was left to the text rules,
// which know neither "pw" nor "privKey": a password or token under such a
// name reached the client from JSON, YAML, INI, CSV and a command's
// arguments. The value now reaches the scanner under a setting's name,
// which drops it only when it reads as a setting or an identifier.
func TestRedTeamRTU_SecretUnderSettingNameInText(t *testing.T) {
	for name, doc := range map[string]string{
		"json pw_type":    `{"pw_type": "` + rtmPassword + `", "host": "db.internal"}`,
		"json privKeyId":  `{"privKeyId": "` + rtmToken + `", "host": "db.internal"}`,
		"yaml token_ref":  "auth:\n  token_ref: " + rtmToken + "\n  host: db.internal\n",
		"ini pw_id":       "[db]\nhost = db.internal\npw_id = " + rtmPassword + "\n",
		"csv password_id": "user,password_id\nadmin," + rtmPassword + "\nhost,db.internal\n",
		"csv api_key_id":  "user,api_key_id\nadmin," + rtmToken + "\nhost,db.internal\n",
		"flag":            `{"args": ["--pw-label", "` + rtmPassword + `", "--host", "db.internal"]}`,
		"max length":      `{"db": {"pw_max_length": "` + rtmPassword + `"}, "host": "db.internal"}`,
	} {
		if got, leak := rtrLeaks(t, doc); leak {
			t.Errorf("%s: a secret reached the client: %q", name, got)
		} else if !strings.Contains(got, "db.internal") {
			t.Errorf("%s: more than the secret changed: %q", name, got)
		}
	}
	// Near misses: settings and identifiers under such names.
	for _, doc := range []string{
		`{"access_token": "[REDACTED]", "token_type": "Bearer", "expires_in": 3600}`,
		`{"signing_key_id": "8d3f0a4b9c1e2f7a6b5c4d3e2f1a0b9c12345678", "apiKeyVersion": "v2"}`,
		`{"pw_min_length": 12, "pw_max_length": "64", "pwRules": "minlength: 20; required: upper;"}`,
		`{"secretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf", "secret_version": "AWSCURRENT"}`,
		"auth:\n  token_ref: db-credentials-v2\n  privKeyId: 3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30\n",
		"user,password_id,api_key_header\nci,01ARZ3NDEKTSV4RRFFQ69G5FAV,X-Api-Key\n",
		"[auth]\npw_format = bcrypt-sha256-v2\npw_pattern = ^[A-Za-z0-9]{12,64}$\n",
	} {
		if got, n := rtqText(t, doc); got != doc || n != 0 {
			t.Errorf("changed (%d findings):\n%q\n->\n%q", n, doc, got)
		}
	}
}
