package vault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

var master = bytes.Repeat([]byte{7}, 32)

func newVault(t *testing.T, opts *vault.Options) *vault.Vault {
	t.Helper()
	v, err := vault.New(master, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Set("github_token", "ghp_supersecretvalue"); err != nil {
		t.Fatal(err)
	}
	if err := v.Bind("github_token", []string{"create_issue"}, nil); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVaultRoundTrip(t *testing.T) {
	v := newVault(t, nil)
	data, err := v.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("supersecret")) || bytes.Contains(data, []byte("github_token")) {
		t.Fatal("vault file shows a secret or its name in clear")
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil || f["encryption"] != "aes-256-gcm" || f["version"] != 1.0 {
		t.Fatalf("vault file = %s", data)
	}
	w, err := vault.Open(data, master, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Names(), []string{"github_token"}) {
		t.Fatalf("Names = %v", w.Names())
	}
	if s := fmt.Sprintf("%v %+v %#v %s", w, w, w, w); strings.Contains(s, "supersecret") {
		t.Fatalf("printing a vault shows a secret: %s", s)
	}
}

func TestVaultWrongKeyFails(t *testing.T) {
	data, _ := newVault(t, nil).Marshal()
	wrong := bytes.Repeat([]byte{8}, 32)
	if _, err := vault.Open(data, wrong, nil); !errors.Is(err, vault.ErrKeyFile) {
		t.Fatalf("wrong master key: %v, want ErrKeyFile", err)
	}
	if _, err := vault.Open(data, master[:16], nil); !errors.Is(err, consent.ErrInvalidOptions) {
		t.Fatalf("short master key: %v, want ErrInvalidOptions", err)
	}
}

func TestVaultTamperedCiphertextFails(t *testing.T) {
	data, _ := newVault(t, nil).Marshal()
	var f map[string]any
	_ = json.Unmarshal(data, &f)
	for _, field := range []string{"data", "tag", "iv", "salt"} {
		g := maps(f)
		s := g[field].(string)
		flip := "0"
		if s[0] == '0' {
			flip = "1"
		}
		g[field] = flip + s[1:]
		b, _ := json.Marshal(g)
		if _, err := vault.Open(b, master, nil); !errors.Is(err, vault.ErrKeyFile) {
			t.Errorf("tampered %s: %v, want ErrKeyFile", field, err)
		}
	}
	g := maps(f)
	g["kdf"] = "none"
	b, _ := json.Marshal(g)
	if _, err := vault.Open(b, master, nil); !errors.Is(err, vault.ErrKeyFile) {
		t.Errorf("changed kdf: %v, want ErrKeyFile", err)
	}
}

func maps(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestVaultSaltDiffersPerVault(t *testing.T) {
	salts := map[string]bool{}
	for range 5 {
		data, _ := newVault(t, nil).Marshal()
		var f struct{ Salt, IV string }
		_ = json.Unmarshal(data, &f)
		if len(f.Salt) != 64 || salts[f.Salt] {
			t.Fatalf("salt %q repeated or not 32 bytes", f.Salt)
		}
		salts[f.Salt] = true
	}
	// The salt stays with its vault across saves; the IV changes.
	v := newVault(t, nil)
	a, _ := v.Marshal()
	b, _ := v.Marshal()
	var fa, fb struct{ Salt, IV string }
	_ = json.Unmarshal(a, &fa)
	_ = json.Unmarshal(b, &fb)
	if fa.Salt != fb.Salt || fa.IV == fb.IV {
		t.Fatalf("two saves of one vault: salts %v/%v IVs %v/%v", fa.Salt, fb.Salt, fa.IV, fb.IV)
	}
}

func TestVaultSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vault.json")
	if err := newVault(t, nil).Save(path); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("vault file mode %v, want 0600", st.Mode().Perm())
	}
	if _, err := vault.Load(path, master, nil); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(path, 0o644)
	if _, err := vault.Load(path, master, nil); !errors.Is(err, vault.ErrKeyFile) {
		t.Fatalf("world-readable vault: %v, want ErrKeyFile", err)
	}
}

func TestVaultSetRejectsBadNames(t *testing.T) {
	v := newVault(t, nil)
	for _, n := range []string{"", "a b", "{{x}}", strings.Repeat("a", 65)} {
		if err := v.Set(n, "x"); !errors.Is(err, consent.ErrInvalidRequest) {
			t.Errorf("Set(%q) = %v", n, err)
		}
	}
}

// approvedGrant runs an Asker that approves and returns its answer.
func approvedGrant(t *testing.T, args map[string]any, mods map[string]any) consent.Answer {
	t.Helper()
	d := consent.Approved
	if mods != nil {
		d = consent.ApprovedWithModifications
	}
	f := newAsker(t, reply(d, mods), nil)
	ans, err := f.Asker.Ask(context.Background(), consent.Request{Tool: "create_issue", Args: args})
	if err != nil || !ans.Approved() {
		t.Fatalf("Ask = %+v, %v", ans, err)
	}
	return ans
}

func TestVaultInjectOnlyAfterApproval(t *testing.T) {
	events := &eventLog{}
	v := newVault(t, &vault.Options{OnEvent: events.Record})
	args := map[string]any{
		"auth":  "Bearer " + vault.SecretRef("github_token"),
		"title": "x",
		"deep":  []any{map[string]any{"k": vault.SecretRef("github_token")}},
	}
	ctx := context.Background()

	// A plain allowed call has no grant.
	if _, err := v.Inject(ctx, nil, "create_issue", args); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("no grant: %v, want ErrNoConsent", err)
	}
	if _, err := v.Inject(ctx, &consent.Grant{}, "create_issue", args); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("forged zero grant: %v, want ErrNoConsent", err)
	}
	// A denied answer has no grant either.
	f := newAsker(t, reply(consent.Denied, nil), nil)
	denied, _ := f.Asker.Ask(ctx, consent.Request{Tool: "create_issue", Args: args})
	if _, err := v.Inject(ctx, denied.Grant, "create_issue", args); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("denied: %v, want ErrNoConsent", err)
	}

	ans := approvedGrant(t, args, nil)
	// A grant is for its own call only.
	other := map[string]any{"auth": "Bearer " + vault.SecretRef("github_token"), "title": "y"}
	if _, err := v.Inject(ctx, ans.Grant, "create_issue", other); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("other arguments: %v, want ErrNoConsent", err)
	}
	if _, err := v.Inject(ctx, ans.Grant, "delete_repo", ans.Args); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("other tool: %v, want ErrNoConsent", err)
	}
	if len(events.Types()) != 0 {
		t.Fatalf("refused injections emitted %v", events.Types())
	}

	got, err := v.Inject(ctx, ans.Grant, "create_issue", ans.Args)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"auth":  "Bearer ghp_supersecretvalue",
		"title": "x",
		"deep":  []any{map[string]any{"k": "ghp_supersecretvalue"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Inject = %v", got)
	}
	if !strings.Contains(args["auth"].(string), "{{vault:") {
		t.Fatal("Inject changed its input")
	}
	// Once only.
	if _, err := v.Inject(ctx, ans.Grant, "create_issue", ans.Args); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("second use: %v, want ErrNoConsent", err)
	}
	// One event, with the name and never the value.
	if len(events.Events()) != 1 || events.Events()[0].Type != consent.EventCredentialInjected ||
		events.Events()[0].Credential != "github_token" || events.Events()[0].RequestID != ans.RequestID {
		t.Fatalf("events = %+v", events.Events())
	}
	if s := fmt.Sprintf("%+v", events.Events()); strings.Contains(s, "supersecret") {
		t.Fatal("an event holds the secret value")
	}
}

func TestVaultInjectAfterModification(t *testing.T) {
	v := newVault(t, nil)
	args := map[string]any{"title": "x"}
	ans := approvedGrant(t, args, map[string]any{"auth": vault.SecretRef("github_token")})
	if _, err := v.Inject(context.Background(), ans.Grant, "create_issue", args); !errors.Is(err, consent.ErrNoConsent) {
		t.Fatalf("original args after a modification: %v, want ErrNoConsent", err)
	}
	ans = approvedGrant(t, args, map[string]any{"auth": vault.SecretRef("github_token")})
	got, err := v.Inject(context.Background(), ans.Grant, "create_issue", ans.Args)
	if err != nil || got["auth"] != "ghp_supersecretvalue" {
		t.Fatalf("Inject = %v, %v", got, err)
	}
}

func TestVaultInjectUnknownSecretAndAuditFailure(t *testing.T) {
	v := newVault(t, nil)
	args := map[string]any{"auth": vault.SecretRef("missing")}
	ans := approvedGrant(t, args, nil)
	if _, err := v.Inject(context.Background(), ans.Grant, "create_issue", ans.Args); !errors.Is(err, vault.ErrUnknownSecret) {
		t.Fatalf("unknown secret: %v, want ErrUnknownSecret", err)
	}
	events := &eventLog{Fail: map[consent.EventType]error{consent.EventCredentialInjected: errors.New("log down")}}
	v = newVault(t, &vault.Options{OnEvent: events.Record})
	args = map[string]any{"auth": vault.SecretRef("github_token")}
	ans = approvedGrant(t, args, nil)
	got, err := v.Inject(context.Background(), ans.Grant, "create_issue", ans.Args)
	if !errors.Is(err, consent.ErrAudit) || got != nil {
		t.Fatalf("audit failure: %v, %v; want ErrAudit and nothing injected", got, err)
	}
}
