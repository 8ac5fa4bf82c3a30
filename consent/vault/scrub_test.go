package vault_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// TestInjectedSecretsScrubbedFromResults (fault 2): after an approved call
// ran with an injected secret, the secret is removed from whatever the call
// returns, raw and encoded, in text, structured values and errors.
func TestInjectedSecretsScrubbedFromResults(t *testing.T) {
	const secret = "ghp_supersecretvalue/<&>+=?é"
	v := newVault(t, nil)
	if err := v.Set("github_token", secret); err != nil {
		t.Fatal(err)
	}
	c := newClock()
	asker, err := consent.NewAsker(approveAll{}, mustSigner(t, key(3)), memNonces(t, c), &consent.AskerOptions{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"auth": "Bearer " + vault.SecretRef("github_token")}
	ans, err := asker.Ask(context.Background(), consent.Request{Tool: "create_issue", Args: args})
	if err != nil || !ans.Approved() {
		t.Fatal(ans, err)
	}
	if _, err := v.Inject(context.Background(), ans.Grant, "create_issue", ans.Args); err != nil {
		t.Fatal(err)
	}
	s := v.Scrubber(ans.Args)
	jsonEsc, _ := json.Marshal(secret)
	echoes := map[string]string{
		"raw":         "token " + secret + " refused",
		"json":        `{"echo":` + string(jsonEsc) + `}`,
		"query":       "https://api.example/x?token=" + url.QueryEscape(secret),
		"query lower": "https://api.example/x?token=" + strings.ToLower(url.QueryEscape(secret)),
		"json ascii":  `{"echo":"ghp_supersecretvalue/\u003c\u0026\u003e+=?\u00e9"}`,
		"path":        "/repos/" + url.PathEscape(secret),
		"hex":         hex.EncodeToString([]byte(secret)),
		"HEX":         strings.ToUpper(hex.EncodeToString([]byte(secret))),
		"base64":      base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64url":   base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"basic auth":  "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+secret)),
		"base64 mid1": base64.StdEncoding.EncodeToString([]byte("x" + secret + "yz")),
		"base64 mid2": base64.StdEncoding.EncodeToString([]byte("xy" + secret + "z")),
	}
	for name, text := range echoes {
		got := s.String(text)
		if strings.Contains(got, secret) || containsAnyEncoding(got, secret) {
			t.Errorf("%s: %q still holds the secret", name, got)
		}
		if !strings.Contains(got, "[REDACTED:vault:github_token]") {
			t.Errorf("%s: %q has no redaction mark", name, got)
		}
	}
	val := s.Value(map[string]any{"items": []any{"x", secret}, secret: 1})
	if b, _ := json.Marshal(val); strings.Contains(string(b), "supersecret") {
		t.Errorf("structured value still holds the secret: %s", b)
	}
	if err := s.Error(fmt.Errorf("upstream: 401 for %s", secret)); strings.Contains(err.Error(), "supersecret") {
		t.Errorf("error still holds the secret: %v", err)
	}
	// Near misses stay.
	for _, keep := range []string{"ghp_", "supersecret", "Bearer x", ""} {
		if got := s.String(keep); got != keep {
			t.Errorf("%q scrubbed to %q", keep, got)
		}
	}
}

func containsAnyEncoding(s, secret string) bool {
	for _, e := range []string{hex.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(secret)), url.QueryEscape(secret)} {
		if strings.Contains(s, e) {
			return true
		}
	}
	return false
}

// TestSecretsBoundToTools (fault 2): an approved call of one tool cannot
// pull a secret bound to another tool or server by naming it.
func TestSecretsBoundToTools(t *testing.T) {
	v := newVault(t, nil) // github_token bound to create_issue, any server
	if err := v.Set("prod_db", "postgres://u:p@db"); err != nil {
		t.Fatal(err)
	}
	if err := v.Bind("prod_db", []string{"run_query"}, []string{"db-server"}); err != nil {
		t.Fatal(err)
	}
	c := newClock()
	asker, _ := consent.NewAsker(approveAll{}, mustSigner(t, key(4)), memNonces(t, c), &consent.AskerOptions{Now: c.Now})
	for _, tc := range []struct {
		tool, server, secret string
		want                 error
	}{
		{"create_issue", "", "github_token", nil},
		{"delete_repo", "", "github_token", vault.ErrSecretNotAllowed},
		{"run_query", "db-server", "prod_db", nil},
		{"run_query", "other", "prod_db", vault.ErrSecretNotAllowed},
		{"create_issue", "", "prod_db", vault.ErrSecretNotAllowed},
	} {
		args := map[string]any{"x": vault.SecretRef(tc.secret)}
		ans, err := asker.Ask(context.Background(), consent.Request{Tool: tc.tool, Server: tc.server, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Inject(context.Background(), ans.Grant, tc.tool, ans.Args)
		if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
			t.Errorf("%s on %q with %s: %v, want %v", tc.tool, tc.server, tc.secret, err, tc.want)
		}
	}
}

// TestScrubberUnion: a union scrubs the secrets of both sides, raw and
// encoded; nil and empty sides change nothing.
func TestScrubberUnion(t *testing.T) {
	a := vault.NewScrubber(map[string]string{"one": "first-secret-value"})
	b := vault.NewScrubber(map[string]string{"two": "second-secret-value"})
	u := a.Union(b)
	in := "first-secret-value " + base64.StdEncoding.EncodeToString([]byte("second-secret-value")) + " kept"
	if got := u.String(in); got != "[REDACTED:vault:one] [REDACTED:vault:two] kept" {
		t.Fatalf("union scrubbed %q", got)
	}
	var none *vault.Scrubber
	if none.Union(a) != a || a.Union(nil) != a || a.Union(a) != a || a.Union(vault.NewScrubber(nil)) != a {
		t.Error("a union with nothing new must be the same scrubber")
	}
	if got := none.Union(nil).String("first-secret-value"); got != "first-secret-value" {
		t.Errorf("nil union scrubbed %q", got)
	}
}
