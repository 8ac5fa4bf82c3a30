package gatehouse_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Red team of the DLP pack's formats (rtk), through a real go-sdk client:
// temporary AWS credentials as STS prints them, api keys in other
// Authorization schemes, .NET and Java configuration, .netrc default
// lines, a JSON Web Key, and a Kubernetes Secret streamed line by line as
// kubectl prints it (data before kind, so no message held both) reached
// the client in the clear. dlp/redteam_rtk_*_test.go has every spelling.

const rtkSTS = "IQoJb3JpZ2luX2VjEHwaCXVzLWVhc3QtMSJHMEUCIQDk7Zp3Qm9Xr2Lw4Tb8Nc1Vf6Hy0Jd5Ks3Ua7Ge2Pq9AiB4Rt1Ym8Wn6Xc3Lz5Kv0Qj7Hb2Dg9Fs4Ep1Ua6Mo3Ci8Qr1Tyq0AII1f//////////ARAAGgw5ODc2NTQzMjEwOTgiDKx7Wm2Pq4Rt9Nz5LmEo3"

const rtkKey = "k3Zp9Qm2Xr7Lw4Tb8Nc1Vf6Hy0Jd5Ks"

func TestRedTeamRTK_FormatsReachNoClient(t *testing.T) {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	d := strings.NewReplacer("+", "-", "/", "_").Replace(rtkSTS[20:63])
	cases := map[string]struct {
		res          *mcp.CallToolResult
		secret, keep string
	}{
		"aws sts assume-role": {text(`{"Credentials": {"AccessKeyId": "ASIAZ7Q3MV2KXH4PLW6N", "SessionToken": "` + rtkSTS + `", "Expiration": "2026-11-24T13:00:00Z"}}`), rtkSTS[40:80], "Expiration"},
		"sts structured": {&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
			StructuredContent: map[string]any{"Credentials": map[string]any{"SessionToken": rtkSTS, "Expiration": "2026-11-24T13:00:00Z"}}}, rtkSTS[40:80], "Expiration"},
		"curl -v apikey":  {text("> GET /v1 HTTP/1.1\n> Authorization: ApiKey " + rtkKey + "\n> Accept: */*\n"), rtkKey, "> Accept: */*"},
		"web.config":      {text(`<appSettings><add key="PaymentApiKey" value="` + rtkKey + `" /></appSettings>`), rtkKey, "PaymentApiKey"},
		"settings.xml":    {text("<server><id>nexus</id><password>Fake-Pa55word!</password></server>"), "Fake-Pa55word!", "<id>nexus</id>"},
		"netrc default":   {text("default login anonymous password " + rtkKey + "\n"), rtkKey, "default login anonymous"},
		"jwk private key": {text(`{"kty":"OKP","crv":"Ed25519","d":"` + d + `","x":"` + d[:20] + `"}`), d, "[REDACTED:jwk-private-key]"},
		"structured password": {&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
			StructuredContent: map[string]any{"db": map[string]any{"host": "db.internal", "user": "app", "password": "Fake-Pa55word!"}}}, "Fake-Pa55word!", "db.internal"},
		"structured api key": {&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
			StructuredContent: map[string]any{"service": "billing", "api_key": rtkKey}}, rtkKey, "billing"},
		"structured env": {&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
			StructuredContent: map[string]any{"env": []any{map[string]any{"name": "LOG_LEVEL", "value": "info"}, map[string]any{"name": "DB_PASSWORD", "value": "Fake-Pa55word!"}}}}, "Fake-Pa55word!", `"LOG_LEVEL"`},
		"structured headers": {&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
			StructuredContent: map[string]any{"status": 200, "request": map[string]any{"headers": map[string]any{"Accept": []any{"*/*"}, "Authorization": []any{"Bearer " + rtkKey}}}}}, rtkKey, "*/*"},
		"structured jwk": {&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}},
			StructuredContent: map[string]any{"key": map[string]any{"kty": "OKP", "crv": "Ed25519", "d": d}}}, d, `"kty"`},
	}
	res := map[string]*mcp.CallToolResult{}
	for name, c := range cases {
		res[name] = c.res
	}
	_, cs := connectAt(t, rtServer(t, res), "agent", nil, "")
	for name, c := range cases {
		got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": name}})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(got); err != nil {
			t.Fatal(err)
		}
		raw := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(b.String())
		if strings.Contains(raw, c.secret) || !strings.Contains(raw, "[REDACTED:") {
			t.Errorf("%s: the client received the value: %s", name, raw)
		}
		if !strings.Contains(raw, c.keep) {
			t.Errorf("%s: more than the value was redacted: %s", name, raw)
		}
	}
}

// kubectl get secret -o yaml, streamed as it prints (data first, kind
// after), one log message a line: the data block went out before the
// "kind: Secret" that makes it a Secret was sent.
func TestRedTeamRTK_KubernetesSecretStreamedDataFirst(t *testing.T) {
	pw, user := "UzNjcjN0LVA0c3N3MHJkLTIwMjQh", "YWRtaW4tdXNlcg=="
	yaml := "apiVersion: v1\ndata:\n  creds: " + pw + "\n  username: " + user + "\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
	js := "{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"creds\": \"" + pw + "\",\n        \"username\": \"" + user +
		"\"\n    },\n    \"kind\": \"Secret\",\n    \"metadata\": {\n        \"name\": \"db\"\n    }\n}\n"
	for doc, keep := range map[string]string{yaml: "kind: Secret\nmetadata:\n  name: db\n", js: "\"kind\": \"Secret\",\n    \"metadata\""} {
		var lines, pieces []string
		for _, l := range strings.SplitAfter(doc, "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
		for i := 0; i < len(doc); i += 25 {
			pieces = append(pieces, doc[i:min(i+25, len(doc))])
		}
		for _, chunks := range [][]string{lines, pieces} {
			rtkStreamSecret(t, chunks, []string{pw[8:], user[6:]}, keep)
		}
	}
}

// rtkStreamSecret streams chunks as log and progress messages and checks
// that no part of gone reaches the client and keep does.
func rtkStreamSecret(t *testing.T, chunks, gone []string, keep string) {
	t.Helper()
	cs, received := streamServer(t, chunks)
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("k8s")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	for i, joined := range received() {
		what := []string{"log messages", "progress messages"}[i]
		for _, g := range gone {
			if strings.Contains(joined, g) {
				t.Errorf("%s: the client received the Secret's data:\n%s", what, joined)
			}
		}
		if !strings.Contains(joined, keep) {
			t.Errorf("%s: more than the data was redacted:\n%s", what, joined)
		}
	}
}

// Near miss: a ConfigMap streamed the same way arrives as sent.
func TestRedTeamRTK_KubernetesConfigMapStreamedUnchanged(t *testing.T) {
	doc := "apiVersion: v1\ndata:\n  log_level: info\n  mode: production\n  replicas: \"3\"\nkind: ConfigMap\nmetadata:\n  name: app\n"
	cs, received := streamServer(t, strings.SplitAfter(doc, "\n")[:9])
	params := &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}
	params.SetProgressToken("cm")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	for _, joined := range received() {
		if joined != doc {
			t.Errorf("changed: %q", joined)
		}
	}
}

// A log message's structured data is scanned member by member: a value
// whose name alone says it is a credential ({"SessionToken": ...},
// {"password": ...}) went out in the clear.
func TestRedTeamRTK_NamedLogData(t *testing.T) {
	g := mustGuard(t, mustPolicy(t, wirePol), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "logdata", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data := map[string]any{"msg": "assumed role", "credentials": map[string]any{"SessionToken": rtkSTS, "Expiration": "2026-11-24T13:00:00Z"}, "db_password": "Fake-Pa55word!"}
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "aws", Data: data}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	g.Install(s)
	got := make(chan any, 1)
	_, cs := connectAt(t, s, "agent", &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- r.Params.Data },
	}, "2025-11-25")
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(<-got)
	if strings.Contains(string(raw), rtkSTS[40:80]) || strings.Contains(string(raw), "Fake-Pa55word!") {
		t.Errorf("the client received a credential: %s", raw)
	}
	if !strings.Contains(string(raw), "assumed role") || !strings.Contains(string(raw), "2026-11-24T13:00:00Z") {
		t.Errorf("more than the credentials was redacted: %s", raw)
	}
}

// Near misses: structured members whose names look like credentials but
// hold none pass unchanged.
func TestRedTeamRTK_NamedStructuredNearMisses(t *testing.T) {
	sc := map[string]any{
		"token_type": "Bearer", "password_min_length": 12, "api_key_name": "billing", "session": "active",
		"NextToken": rtkKey, "password": "${DB_PASSWORD}", "secret_name": "projects/p/secrets/db-password/versions/3",
		"env": []any{map[string]any{"name": "LOG_LEVEL", "value": "info"}, map[string]any{"name": "DB_PASSWORD_FILE", "value": "/run/secrets/db"}},
		"jwk": map[string]any{"kty": "EC", "crv": "P-256", "x": rtkKey + "abcdefghijk", "y": rtkKey + "ABCDEFGHIJK"},
	}
	res := map[string]*mcp.CallToolResult{"a": {Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: sc}}
	_, cs := connectAt(t, rtServer(t, res), "agent", nil, "")
	got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "leak", Arguments: map[string]any{"case": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(sc)
	if raw, _ := json.Marshal(got.StructuredContent); string(raw) != string(want) {
		t.Errorf("changed:\n got %s\nwant %s", raw, want)
	}
}
