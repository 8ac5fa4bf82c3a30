package dlp_test

import (
	"strings"
	"testing"
)

// Red team rtu: the setting-name branch of the generic rules (red team
// rtr) dropped every match whose name ended in a word such as _id,
// _format or _version, whatever the value: a real password or token under
// such a name reached the client (password_id=Fake-Pa55word!,
// api_key_version: <token>), and RE2's case folding widened the words
// (the long s, ſ, folds to s; the Kelvin sign to k). Such a name now
// drops only a value that reads as a setting or an identifier.
func TestRedTeamRTU_SecretUnderSettingName(t *testing.T) {
	s := builtinScanner(t, nil)
	const pw, tok = "Fake-Pa55word!", "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"
	for _, secret := range []string{
		"password_id=" + pw,
		"PASSWORD_FORMAT=" + pw,
		`PASSWORD_FORMAT="` + pw + `"`,
		`{"passwordFormat": "` + pw + `"}`,
		`{"password_id": "` + pw + `"}`,
		`{\"password_type\": \"` + pw + `\"}`,
		"password.id=" + pw,
		"password-label: '" + pw + "'",
		"password_ſtrength=" + pw,
		"password_id=" + pw + "$",
		`password_id: "^` + pw + `"`,
		"api_key_version: " + tok,
		"api_key_id=" + tok,
		`{"apiKeyId": "` + tok + `"}`,
		"secret_ref: " + tok,
		"secretKeyRef: " + tok,
		"client_secret_header=" + tok,
		"SECRET_KEY_VERSION=" + tok,
		"access_token_type: " + tok,
		// An ARN's shape only (red team rty): arn, a partition, a
		// service, a region, an account.
		`{"password_id": "arn:x:` + pw + `"}`,
		"password_id=arn:aws:" + pw,
	} {
		if out, f := s.Redact(secret); len(f) == 0 || strings.Contains(out, pw) || strings.Contains(out, tok) {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
	// Near misses: settings about credentials and their identifiers.
	for _, clean := range []string{
		"password_min_length=12",
		"PASSWORD_FORMAT=bcrypt-sha256-v2",
		`{"password_type": "one-time-code"}`,
		"password_ſtrength=very-strong-2",
		`password_pattern: "^[A-Za-z0-9!@#]{12,64}$"`,
		`password_regex = "(?=.*[0-9])[A-Za-z0-9]{12,}$"`,
		"api_key_id=3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30",
		"api_key_id: 01ARZ3NDEKTSV4RRFFQ69G5FAV",
		`{"secret_version": "v2-3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30"}`,
		"secret_arn=arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf",
		"client_secret_header: X-Client-Secret-V2",
		"access_token_type: Bearer",
		"SECRET_KEY_VERSION=20261124T1000",
		`{"apiKeyId": "8d3f0a4b9c1e2f7a6b5c4d3e2f1a0b9c"}`,
		"secretKeyRef: db-credentials-password",
		"secret_arn: arn:aws:secretsmanager:us-gov-west-1:123456789012:secret:prod/db-AbCdEf",
		"password_ref=arn:aws-cn:ssm:cn-north-1:123456789012:parameter/app/db/password",
		"kms_key_id=arn:aws:kms:eu-central-1:123456789012:key/3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30",
		"secret_ref: arn:aws:iam::aws:policy/SecretsManagerReadWrite",
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
}
