package dlp_test

import (
	"strings"
	"testing"
)

// Red team of the generic rules' values (rtm): once structured content was
// scanned with its member names, the quoted generic rules redacted values
// that name no secret but sit under a name that holds a credential word:
// a password's last change time, a Secret's object name, an AWS ARN of a
// secret. The same lines are ordinary JSON a tool prints as text.
func TestRedTeamRTM_NamedValuesThatAreNoSecret(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, clean := range []string{
		`{"passwordLastChanged": "2024-11-24T13:00:00Z"}`,
		`{"password_expires_at": "2026-02-22 13:00:00+01:00"}`,
		`{"secret_rotated": "2026-11-24"}`,
		`{"secretName": "db-credentials-v2"}`,
		`secret_name = "Prod-Database-Credentials"`,
		`{"client_secret_ref": "oauth-client_prod-2"}`,
		`{"SecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf"}`,
		`{"KmsKeyArn": "arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"}`,
		`api_key_arn: "arn:aws:secretsmanager:us-east-1:123456789012:secret:api-key-Xy12Ab"`,
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
	// Near misses: secrets that look like dates or names only in part.
	for _, secret := range []string{
		`{"password": "2024-11-24-Fake-Pa55word"}`,
		`{"secretName": "k3Zp9Qm2-Xr7Lw4Tb8Nc1Vf6"}`,
		`{"client_secret": "arn-k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"}`,
		`{"api_key": "Prod-k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy"}`,
	} {
		if out, f := s.Redact(secret); len(f) == 0 || !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
}

// Red team of the generic rules' spellings (rtm): a JSON document inside a
// JSON string (a log line's message, a tool's text of an API's body, an
// annotation such as kubectl's last-applied-configuration) has its quotes
// escaped, and the generic rules took a quote only bare; a passphrase, a
// passcode, and private, signing, encryption and master keys were no names
// the generic rules read.
func TestRedTeamRTM_GenericSpellings(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw, tok = "Fake-Pa55word!", "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"
	for _, leak := range []string{
		`{"msg": "{\"user\": \"app\", \"password\": \"` + pw + `\"}"}`,
		`{\\\"db_password\\\": \\\"` + pw + `\\\"}`,
		`"{\"client_secret\":\"` + tok + `\"}"`,
		`{\"api_key\" : \"` + tok + `\", \"region\": \"eu\"}`,
		`{"passphrase": "` + pw + `"}`,
		`passcode = "` + pw + `"`,
		`{"private_key": "` + tok + `"}`,
		`{"signing_key": "` + tok + `"}`,
		`ENCRYPTION_KEY=` + tok,
		`master-key: "` + tok + `"`,
	} {
		out, f := s.Redact(leak)
		if len(f) == 0 || strings.Contains(out, pw) || strings.Contains(out, tok) {
			t.Errorf("%s: reached the output: %s", leak, out)
		}
	}
	for _, clean := range []string{
		`{\"password\": \"${DB_PASSWORD}\"}`,
		`{\"password\": \"\"}`,
		`{\"api_key\": \"YOUR_API_KEY_HERE\"}`,
		`{\"secretName\": \"db-credentials-v2\"}`,
		`"{\"passwordMinLength\": 12}"`,
		`{"private_key_id": "0123456789abcdef"}`,
		`{"signing_key_path": "/etc/keys/signing.pem"}`,
		`{"passphrase_required": true}`,
		`fmt.Println("enter passphrase:", prompt)`,
		`masterKeyRef: db-credentials-v2`,
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
}
