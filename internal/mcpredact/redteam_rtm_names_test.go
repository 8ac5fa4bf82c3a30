package mcpredact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/dlp"
	"github.com/gatehouse-dev/gatehouse/internal/mcpredact"
)

// Red team of the named scan (rtm): a credential-named member was scanned
// with its name, but only the spellings a rule lists were read as one: a
// password named pw, pass, passphrase, Passwort or ｐａｓｓｗｏｒｄ, a key named
// privKey, x-api-key's value alone, signing_key, a bare Authorization
// token, a name/value pair written Name/Value or k/v, a number, an object
// {"password": {"value": ...}}, an array of characters, an environment
// array's DB_PASS=..., a command's ["--pass", ...] reached the client.

const (
	rtmPassword = "Fake-Pa55word!"
	rtmToken    = "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"
)

// rtmStructured returns the wire form of a tool result whose structured
// content is v, after redaction.
func rtmStructured(t *testing.T, s *dlp.Scanner, v map[string]any) (string, int) {
	t.Helper()
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "see structured"}}, StructuredContent: v}
	out, f, err := mcpredact.Result(s, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	return wire(t, out), len(f)
}

func TestRedTeamRTM_CredentialNameSpellings(t *testing.T) {
	s := scanner(t)
	var chars []any
	for _, r := range rtmPassword {
		chars = append(chars, string(r))
	}
	cases := map[string]map[string]any{
		"pw":                {"user": "app", "pw": rtmPassword},
		"pass":              {"db_pass": rtmPassword},
		"Pass-Word":         {"Pass-Word": rtmPassword},
		"passphrase":        {"Passphrase": rtmPassword},
		"passcode":          {"passcode": "84736251"},
		"Passwort":          {"Passwort": rtmPassword},
		"contraseña":        {"contraseña": rtmPassword},
		"mot_de_passe":      {"mot_de_passe": rtmPassword},
		"fullwidth":         {"ｐａｓｓｗｏｒｄ": rtmPassword},
		"cyrillic a":        {"p\u0430ssword": rtmPassword},
		"privKey":           {"privKey": rtmToken},
		"private_key":       {"private_key": rtmToken},
		"signingKey":        {"signingKey": rtmToken},
		"encryption_key":    {"ENCRYPTION_KEY": rtmToken},
		"kek":               {"kek": rtmToken},
		"x-api-key":         {"headers": map[string]any{"x-api-key": rtmToken}},
		"Authorization":     {"Authorization": rtmToken},
		"credentials":       {"credentials": "deploy:" + rtmToken},
		"cookie":            {"cookie": rtmToken},
		"number":            {"password": json.Number("84736251903")},
		"nested value":      {"password": map[string]any{"value": rtmPassword, "updatedAt": "2026-11-24T13:00:00Z"}},
		"nested only":       {"api_key": map[string]any{"current": rtmToken}},
		"characters":        {"password": chars},
		"Name/Value":        {"env": []any{map[string]any{"Name": "DB_PASS", "Value": rtmPassword}}},
		"k/v":               {"vars": []any{map[string]any{"k": "STRIPE_SECRET", "v": rtmToken}}},
		"ParameterKey":      {"Parameters": []any{map[string]any{"ParameterKey": "DbPassword", "ParameterValue": rtmPassword}}},
		"env array":         {"Env": []any{"PATH=/usr/bin", "DB_PASS=" + rtmPassword}},
		"env array secret":  {"Env": []any{"PATH=/usr/bin", "WEBHOOK_SIGNING_KEY=" + rtmToken}},
		"args":              {"args": []any{"psql", "--pass", rtmPassword, "-h", "db"}},
		"args with =":       {"argv": []any{"deploy", "--signing-key=" + rtmToken}},
		"apiKey in log doc": {"msg": "call", "request": map[string]any{"apiKey": rtmToken}},
	}
	for name, v := range cases {
		got, n := rtmStructured(t, s, v)
		for _, secret := range []string{rtmPassword, rtmToken, "84736251", `"F","a","k","e"`} {
			if strings.Contains(got, secret) {
				t.Errorf("%s: %q reached the client: %s", name, secret, got)
			}
		}
		if n == 0 {
			t.Errorf("%s: no finding recorded", name)
		}
	}
}

// Near misses: names that hold a credential word but whose value is no
// secret, pagination tokens, keys that are not secret keys, LLM token
// counts, references to secrets, templates and placeholders arrive as
// written.
func TestRedTeamRTM_NamedNearMisses(t *testing.T) {
	s := scanner(t)
	for _, doc := range []string{
		`{"NextToken": "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks", "page_token": "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks", "tokenType": "Bearer", "usage": {"input_tokens": 1234, "output_tokens": 56}, "max_tokens": 4096}`,
		`{"Contents": [{"Key": "logs/2024/11/24/app-01.log", "ETag": "\"9b2cf535f27731c974343645a3985328\"", "Size": 1234}, {"Key": "backups/db-2024-11-24.sql.gz", "Size": 9}]}`,
		`{"publicKey": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks", "keyId": "1234abcd-12ab-34cd-56ef-1234567890ab", "sortKey": "created_at#2024-11-24", "primaryKey": "id", "idempotencyKey": "req-7f3a9c2e-b41d"}`,
		`{"sessionId": "3f2a9c7e-b41d-4e0a-9d2f-6c1b8e5a7f30", "password_policy": {"min_length": 12}, "passwordMinLength": 12, "passwordLastChanged": "2024-11-24T13:00:00Z", "passwordExpired": false}`,
		`{"secretName": "db-credentials-v2", "secretRef": {"name": "db-credentials", "key": "password"}, "valueFrom": {"secretKeyRef": {"name": "db-credentials-v2", "key": "DB_PASSWORD"}}}`,
		`{"env": [{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}, {"name": "LOG_LEVEL", "value": "info"}, {"name": "DB_PASSWORD_FILE", "value": "/run/secrets/db_password"}]}`,
		`{"credentials": {"type": "service_account", "project_id": "my-proj-123", "client_email": "svc@my-proj-123.iam.gserviceaccount.com"}, "auth": {"type": "oauth2", "tokenUrl": "https://auth.example.com/oauth2/token"}}`,
		`{"password": {"required": true, "minLength": 8}, "token": 1234567890, "tokenizer": "bert-base-uncased", "cookie_name": "sid", "authorName": "Jane Doe", "apiKeyName": "prod-key-2"}`,
		`{"secrets": ["db-password", "api-key"], "credentials": ["default", "prod-readonly"], "auth": "none", "token": null, "password": "", "passes": 12, "bypass": "cache-v2"}`,
		`{"Env": ["PATH=/usr/local/sbin:/usr/local/bin", "GPG_KEY=A035C8C19219BA821ECEA86B64E628F8D684696D", "PYTHON_VERSION=3.12.1", "DB_PASSWORD_FILE=/run/secrets/db", "API_TOKEN_URL=https://auth.example.com/token", "PWD=/home/app"]}`,
		`{"Cmd": ["--token-ttl", "3600", "--password-file", "/run/secrets/db", "--secret-name", "my-app/prod/DbPassword", "--auth", "oauth2"]}`,
		`{"args": ["kubectl", "get", "secret", "db-credentials-v2", "-o", "yaml"], "auth_method": "password", "authType": "Basic", "password_reset_url": "https://example.com/reset?step=1"}`,
		`{"kind": "ConfigMap", "metadata": {"name": "db", "namespace": "prod"}, "data": {"mode": "production", "password_min_length": "12"}}`,
		`{"signature": "func Encode(w io.Writer, v any) error", "sig": "func()", "hmac": "sha256", "jwt": {"alg": "RS256", "typ": "JWT"}, "bearer": "true"}`,
		`{"Tags": [{"Key": "Environment", "Value": "prod-eu-west-1"}, {"Key": "SecretArn", "Value": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf"}, {"Key": "KeyRotation", "Value": "enabled-90-days"}]}`,
		`{"Parameters": [{"ParameterKey": "DBPasswordSecretName", "ParameterValue": "prod/db/password"}, {"ParameterKey": "TokenTTL", "ParameterValue": "3600"}]}`,
		`{"password": {"hint": "the usual one", "updatedAt": "2024-11-24T13:00:00Z"}, "apiKey": {"id": "ak_01HZX3", "createdAt": "2024-11-24T13:00:00Z", "prefix": "sk_live"}}`,
		`{"github_token": {"value": "${{ secrets.GITHUB_TOKEN }}"}, "password": "{{ vault_db_password }}", "api_key": "YOUR_API_KEY_HERE", "client_secret": "${OAUTH_CLIENT_SECRET}", "pw": "********"}`,
	} {
		var v map[string]any
		d := json.NewDecoder(strings.NewReader(doc))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if got, n := rtmStructured(t, s, v); n != 0 || strings.Contains(got, "[REDACTED:") {
			t.Errorf("a value that is no secret was redacted: %s", got)
		}
	}
}

// An elicitation form's schema can carry a default value, and a sampling
// request's metadata any JSON: a password as a property's default
// ({"properties": {"db_pw": {"type": "string", "default": ...}}}) went to
// the client in the clear.
func TestRedTeamRTM_OutgoingNamedValues(t *testing.T) {
	s := scanner(t)
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"host":  map[string]any{"type": "string", "default": "db.internal"},
		"db_pw": map[string]any{"type": "string", "default": rtmPassword},
	}}
	el := &mcp.ServerRequest[*mcp.ElicitParams]{Params: &mcp.ElicitParams{Message: "confirm the connection", RequestedSchema: schema}}
	out, _, err := mcpredact.Outgoing(s, "elicitation/create", el)
	if err != nil {
		t.Fatal(err)
	}
	if got := wire(t, out.(*mcp.ServerRequest[*mcp.ElicitParams]).Params); strings.Contains(got, rtmPassword) || !strings.Contains(got, "db.internal") {
		t.Errorf("elicitation: %s", got)
	}
	sm := &mcp.ServerRequest[*mcp.CreateMessageParams]{Params: &mcp.CreateMessageParams{MaxTokens: 10,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize"}}},
		Meta:     mcp.Meta{"conn": map[string]any{"Name": "SMTP_PASS", "Value": rtmPassword}}}}
	out, _, err = mcpredact.Outgoing(s, "sampling/createMessage", sm)
	if err != nil {
		t.Fatal(err)
	}
	if got := wire(t, out.(*mcp.ServerRequest[*mcp.CreateMessageParams]).Params); strings.Contains(got, rtmPassword) {
		t.Errorf("sampling: %s", got)
	}
}
