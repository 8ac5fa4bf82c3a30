package dlp_test

import (
	"strings"
	"testing"
)

// Red team of the pack's formats (rtk): credentials in shapes the default
// rules did not read reached the reader whole. Each case names the value
// that must go and a part of the text that must stay (the value is
// redacted, not the line).
type rtkCase struct {
	name, doc, secret, keep string
}

// stsToken is a fake AWS STS session token, shaped as STS prints them
// (IQoJb3JpZ2luX2Vj..., base64 with runs of "/").
const stsToken = "IQoJb3JpZ2luX2VjEHwaCXVzLWVhc3QtMSJHMEUCIQDk7Zp3Qm9Xr2Lw4Tb8Nc1Vf6Hy0Jd5Ks3Ua7Ge2Pq9AiB4Rt1Ym8Wn6Xc3Lz5Kv0Qj7Hb2Dg9Fs4Ep1Ua6Mo3Ci8Qr1Tyq0AII1f//////////ARAAGgw5ODc2NTQzMjEwOTgiDKx7Wm2Pq4Rt9Nz5LmEo3"

const rtkV = "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"

func rtkCases() []rtkCase {
	pw := "Fake-Pa55word!"
	return []rtkCase{
		// AWS temporary credentials as the CLI and SDKs print them.
		{"sts json", `{"Credentials": {"AccessKeyId": "ASIAZ7Q3MV2KXH4PLW6N", "SessionToken": "` + stsToken + `", "Expiration": "2026-11-24T13:00:00Z"}}`, stsToken, `"Expiration": "2026-11-24T13:00:00Z"`},
		{"sts json pretty", "{\n    \"Credentials\": {\n        \"SessionToken\": \"" + stsToken + "\",\n        \"Expiration\": \"2026-11-24T13:00:00+00:00\"\n    }\n}", stsToken, "Expiration"},
		{"sdk quoted", `credentials.sessionToken = "` + stsToken + `";`, stsToken, "credentials.sessionToken"},
		{"presigned url", "GET https://b.s3.amazonaws.com/o?X-Amz-Security-Token=" + strings.ReplaceAll(stsToken, "/", "%2F") + "&X-Amz-Date=20261124T120000Z", "ARAAGgw5ODc2NTQz", "X-Amz-Date=20261124T120000Z"},
		// Authorization headers of other schemes, api keys after a space.
		{"apikey scheme", "> Authorization: ApiKey " + rtkV + "\n> Accept: */*", rtkV, "> Accept: */*"},
		{"api-key scheme", `curl -H "Authorization: Api-Key ` + rtkV + `" https://api.example.com`, rtkV, "https://api.example.com"},
		{"okta ssws", "Authorization: SSWS " + rtkV, rtkV, "Authorization: SSWS "},
		{"deepl", "Authorization: DeepL-Auth-Key " + rtkV, rtkV, "DeepL-Auth-Key"},
		{"token token=", `Authorization: Token token="` + rtkV + `"`, rtkV, "Authorization: Token"},
		{"bearer percent", "https://x.example.com/cb?authorization=Bearer%20" + rtkV + "&a=1", rtkV, "&a=1"},
		{"apikey space", "apikey " + rtkV, rtkV, "apikey "},
		{"api_key space", "set api_key " + rtkV + ";", rtkV, "set api_key"},
		{"curl -u apikey", "curl -u apikey:" + rtkV + " https://api.example.com/v1", rtkV, "https://api.example.com/v1"},
		{"curl -u user", "curl -s -u admin:" + pw + " https://h.example.com/", pw, "https://h.example.com/"},
		// JSON token members.
		{"refresh_token", `{"access_token":"x","refresh_token": "` + rtkV + `", "token_type": "Bearer"}`, rtkV, `"token_type": "Bearer"`},
		{"token member", `{"token": "` + rtkV + `"}`, rtkV, `{"token": "`},
		{"docker identitytoken", `{"auths":{"ghcr.io":{"identitytoken":"` + rtkV + `"}}}`, rtkV, "ghcr.io"},
		// .netrc with a short host name, and its default line.
		{"netrc short host", "machine gitea login bot password " + rtkV, rtkV, "machine gitea login bot"},
		{"netrc default", "default login anonymous password " + rtkV, rtkV, "default login anonymous"},
		// .NET, Java and other configuration files.
		{"app.config add key", `<appSettings><add key="ApiKey" value="` + rtkV + `"/></appSettings>`, rtkV, `<add key="ApiKey" value="`},
		{"app.config password", `<add key="SmtpPassword" value="` + pw + `" />`, pw, "SmtpPassword"},
		{"spring property", `<property name="password" value="` + pw + `"/>`, pw, `<property name="password"`},
		{"xml element", "<server><id>nexus</id><username>deploy</username><password>" + pw + "</password></server>", pw, "<username>deploy</username>"},
		{"xml apiKey", "<apiKey>" + rtkV + "</apiKey>", rtkV, "<apiKey>"},
		{"properties entry", `<entry key="api.key">` + rtkV + `</entry>`, rtkV, `<entry key="api.key">`},
		{"properties spaced", "spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password = " + pw + "\n", pw, "spring.datasource.url=jdbc:postgresql://db/app"},
		{"properties colon", "db.password:" + pw + "\n", pw, "db.password:"},
		{"pypirc", "[testpypi]\nusername = deploy\npassword = " + pw + "\n", pw, "username = deploy"},
		{"npmrc _auth", "registry=https://npm.example.com/\n_auth=dXNlcjpGYWtlLVBhNTV3b3JkIQ==\n", "dXNlcjpGYWtlLVBhNTV3b3JkIQ==", "registry=https://npm.example.com/"},
		{"git token user", "git clone https://" + rtkV + "@github.com/org/repo.git", rtkV, "@github.com/org/repo.git"},
		{"jdbc oracle", "jdbc:oracle:thin:app/" + pw + "@db:1521/ORCL", pw, "@db:1521/ORCL"},
		{"sqlplus", "sqlplus -S scott/" + pw + "@orcl", pw, "@orcl"},
		// Passwords on command lines.
		{"mysql -p", "mysql -u root -p" + pw + " app", pw, " app"},
		{"--password value", "mysql -h db -u root --password " + pw + " app", pw, "-h db -u root"},
		{"docker login -p", "docker login -u me -p " + pw + " ghcr.io", pw, "ghcr.io"},
		{"sshpass", "sshpass -p '" + pw + "' ssh root@h", pw, "ssh root@h"},
	}
}

func TestRedTeamRTK_CredentialFormats(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, c := range rtkCases() {
		red, f := s.Redact(c.doc)
		if strings.Contains(red, c.secret) || len(f) == 0 {
			t.Errorf("%s: the value reached the reader:\n%s", c.name, red)
		}
		if !strings.Contains(red, c.keep) {
			t.Errorf("%s: more than the value was redacted:\n%s", c.name, red)
		}
	}
}

// Near misses: placeholders, templates, words of letters only (the
// quoted-value policy: "changeme" in quotes is not taken), identifiers and
// calls, pagination tokens and public keys pass unchanged.
func TestRedTeamRTK_FormatNearMisses(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, doc := range []string{
		"aws_session_token = ${AWS_SESSION_TOKEN}", "aws_session_token = <your-session-token>",
		`{"NextToken": "` + rtkV + `"}`, `{"nextPageToken": "` + rtkV + `"}`, `{"page_token": "` + rtkV + `"}`, `{"token": "<your-token>"}`, `{"token_type": "Bearer"}`,
		"Authorization: ApiKey <your-api-key>", "Authorization: ApiKey ${API_KEY}", "Authorization: Digest username=\"admin\", realm=\"api\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\"",
		"Authorization: AWS4-HMAC-SHA256 Credential=EXAMPLE/20261124/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date",
		"apiKey string", "api_key YOUR_API_KEY_HERE", "the api key is rotated daily",
		"machine learning password reset", "machine gitea password changeme",
		`<add key="Password" value="changeme"/>`, `<add key="ApiKey" value="$(ApiKey)"/>`, `<add key="ApiBaseUrl" value="https://api.example.com/v1"/>`,
		"<password>${env.NEXUS_PASSWORD}</password>", "<maxTokens>4096</maxTokens>", "<secretName>db-credentials</secretName>",
		"password = getPassword();", "password = None", "password = self._password", "passwd:         files systemd", "password = changeme",
		"https://deploy-bot@git.example.com/x.git", "jdbc:oracle:thin:@db:1521/ORCL", "sqlplus /nolog",
		"docker run -p 8080:80 nginx", "echo \"$PW\" | docker login --password-stdin", "mysql -u root -p app", "curl -u \"$USER:$PASS\" https://x",
		"apiVersion: v1\ndata:\n  log_level: info\n  mode: production\nkind: ConfigMap\n",
		`{"kty":"EC","crv":"P-256","x":"Su2K4o0A4WafMmSal7ciMlVRQtxAQnANAQ-9M25x0AE","y":"jjhoZuyAnboR9QYDeDm6cEno98_O9nVnSlJab2nWzOU"}`,
	} {
		if red, f := s.Redact(doc); len(f) != 0 || red != doc {
			t.Errorf("%q -> %q (%v)", doc, red, names(f))
		}
	}
}
