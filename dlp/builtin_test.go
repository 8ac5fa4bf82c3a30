package dlp_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/dlp"
)

func builtinScanner(t testing.TB, opts *dlp.Options) *dlp.Scanner {
	t.Helper()
	s, err := dlp.New(dlp.Builtin(), opts)
	if err != nil {
		t.Fatalf("New(Builtin()): %v", err)
	}
	return s
}

func TestBuiltinPackSize(t *testing.T) {
	rules := dlp.BuiltinRules()
	if len(rules) < 120 {
		t.Fatalf("built-in pack has %d rules, want at least 120", len(rules))
	}
	for _, r := range rules {
		if r.Description == "" || len(r.Positives) == 0 || len(r.Negatives) == 0 {
			t.Errorf("rule %s: needs a description, positives and negatives", r.Name)
		}
	}
	if got, want := len(dlp.Builtin()), len(rules); got != want {
		t.Errorf("Builtin() has %d patterns, BuiltinRules() %d", got, want)
	}
}

// Every positive sample fires its own rule, alone and inside the whole pack
// (where no other rule may take it over), and leaves its marker in the
// output; no negative sample fires its rule.
func TestBuiltinSamples(t *testing.T) {
	pack := builtinScanner(t, nil)
	for _, r := range dlp.BuiltinRules() {
		t.Run(r.Name, func(t *testing.T) {
			alone, err := dlp.New([]dlp.Pattern{r.Pattern}, nil)
			if err != nil {
				t.Fatal(err)
			}
			marker := "[REDACTED:" + r.Name + "]"
			for i, p := range r.Positives {
				if _, f := alone.Redact(p); count(f, r.Name) == 0 {
					t.Errorf("positive %d: rule alone does not fire", i)
				}
				out, f := pack.Redact(p)
				if count(f, r.Name) == 0 || !strings.Contains(out, marker) {
					t.Errorf("positive %d: in the pack, findings %v, output %q", i, names(f), out)
				}
			}
			for i, n := range r.Negatives {
				if out, f := alone.Redact(n); len(f) != 0 || out != n {
					t.Errorf("negative %d fires: %q -> %q", i, n, out)
				}
			}
		})
	}
}

func count(fs []dlp.Finding, rule string) int {
	for _, f := range fs {
		if f.Rule == rule {
			return f.Count
		}
	}
	return 0
}

func names(fs []dlp.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

// The three configuration lines of issue 15 hold no secret and pass through
// the whole pack unchanged, with and without encoding detection; so do their
// kin (templates, resource names, URL-valued keys).
func TestConfigLinesWithoutSecrets(t *testing.T) {
	lines := []string{
		"projects/p/secrets/db-password/versions/3",
		"password_reset_url=https://example.com/reset?step=1",
		"postgres://app:${DB_PASSWORD}@db/app",
		"secret: projects/p/secrets/db-password/versions/3",
		"DB_PASSWORD=projects/p/secrets/db-password/versions/3",
		`password_secret = "projects/my-proj/secrets/db-password/versions/latest"`,
		"password: ${DB_PASSWORD}",
		"password: '{{ .Values.db.password }}'",
		`api_key = "{{ api_key }}"`,
		"redis://:${REDIS_PASSWORD}@cache:6379/0",
		"mysql://root:$(cat /run/secrets/root)@db/app",
		"amqp://guest:%RABBIT_PW%@mq:5672/",
		"password_reset_url: https://example.com/account/reset",
		"client_secret_url=https://vault.example.com/v1/secret/data/app",
		"Password: cfg.Password,",
		"password: user_password",
		"db_password: <your-password>",
		"token_endpoint: https://auth.example.com/oauth2/token",
	}
	for _, opts := range []*dlp.Options{nil, {DetectEncoding: true}} {
		s := builtinScanner(t, opts)
		for _, l := range lines {
			if out, f := s.Redact(l); len(f) != 0 || out != l {
				t.Errorf("%q -> %q (%v)", l, out, names(f))
			}
		}
	}
}
