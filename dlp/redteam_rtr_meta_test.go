package dlp_test

import (
	"strings"
	"testing"
)

// Red team rtr: the generic rules read any name that starts with a
// credential's word, so a setting about passwords or the identifier of a
// key was redacted as if it were one: password_policy=strong-passwords-only,
// {"api_key_id": "<uuid>"}. Tool authors saw their results mangled. A name
// whose last word says the value describes or identifies the credential
// (policy, length, format, id, version, ...) is no credential's name.
func TestRedTeamRTR_NamesOfSettingsAndIDs(t *testing.T) {
	s := builtinScanner(t, nil)
	const uuid = "3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30"
	for _, clean := range []string{
		"password_policy=strong-passwords-only",
		`{"password_policy": "strong-passwords-only"}`,
		"passwordPolicy: strong-passwords-only-v2",
		`PASSWORD_FORMAT="bcrypt-sha256-v2"`,
		`password_regex: "^(?=.*[A-Z])(?=.*[0-9]).{12,}$"`,
		"password.complexity=upper+lower+digit-2",
		"api_key_id=" + uuid,
		"api_key_id: " + uuid,
		`{"api_key_id": "` + uuid + `"}`,
		`{"apiKeyId": "` + uuid + `"}`,
		`{"secret_version": "` + uuid + `"}`,
		`client_secret_id = "` + uuid + `"`,
		"SECRET_KEY_VERSION=v2-" + uuid,
	} {
		if out, f := s.Redact(clean); len(f) > 0 {
			t.Errorf("%s: redacted (%v): %s", clean, f, out)
		}
	}
	// Near misses: credentials under names that only start like those, a
	// key that is a UUID, and a secret after a setting on the same line.
	for _, secret := range []string{
		"password=Fake-Pa55word!",
		"password_policy=strong password=Fake-Pa55word!",
		`{"password_policy": "strong", "password": "Fake-Pa55word!"}`,
		"DB_PASSWORD_V2=Fake-Pa55word!",
		"password_identity=Fake-Pa55word!",
		`{"passwordTypeX": "Fake-Pa55word!"}`,
		"api_key=" + uuid,
		`{"api_key": "` + uuid + `"}`,
		"API_KEY_ID_SECRET=k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks",
		"client_secret: k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks",
		"api_key_id=" + uuid + " api_key=k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks",
	} {
		if out, f := s.Redact(secret); len(f) == 0 || !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: not redacted: %s", secret, out)
		}
	}
}
