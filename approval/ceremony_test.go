package approval_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

func TestBeginEnrollmentOptions(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	var o struct {
		Challenge          string            `json:"challenge"`
		ExcludeCredentials []json.RawMessage `json:"excludeCredentials"`
		Attestation        string            `json:"attestation"`
		Selection          struct {
			UserVerification string `json:"userVerification"`
		} `json:"authenticatorSelection"`
		RP struct {
			ID string `json:"id"`
		} `json:"rp"`
	}
	begin, err := f.gate.BeginEnrollment(ctx, f.user)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(begin.Options, []byte(`"excludeCredentials":[]`)) {
		t.Fatalf("excludeCredentials is not an explicit empty array: %s", begin.Options)
	}
	_ = json.Unmarshal(begin.Options, &o)
	if o.Selection.UserVerification != "required" || o.Attestation != "none" || o.RP.ID != testRPID {
		t.Fatalf("options %s", begin.Options)
	}
	first := o.Challenge
	if c, _ := base64.RawURLEncoding.DecodeString(first); len(c) < 32 {
		t.Fatalf("registration challenge of %d bytes", len(c))
	}

	f.enroll()
	begin, _ = f.gate.BeginEnrollment(ctx, f.user)
	o.ExcludeCredentials = nil
	_ = json.Unmarshal(begin.Options, &o)
	if len(o.ExcludeCredentials) != 1 || o.Challenge == first {
		t.Fatalf("after one enrollment: exclude=%d, fresh challenge=%v", len(o.ExcludeCredentials), o.Challenge != first)
	}
}

func TestEnrollmentPersistsTransportsAndAttestation(t *testing.T) {
	for _, att := range []approvaltest.Attestation{approvaltest.AttestationNone, approvaltest.AttestationPacked} {
		f := newFixture(t, &fixtureOpts{auth: &approvaltest.Options{Attestation: att, Transports: []string{"usb", "nfc"}}})
		res := f.enroll()
		if !res.Success || res.CredentialID == "" || !res.CreatedAt.Equal(f.clock.Now()) {
			t.Fatalf("%s: result %+v", att, res)
		}
		creds, _ := f.creds.List(context.Background(), f.user.Handle)
		if len(creds) != 1 {
			t.Fatalf("%s: %d credentials", att, len(creds))
		}
		c := creds[0]
		if base64.RawURLEncoding.EncodeToString(c.ID) != res.CredentialID || len(c.PublicKey) == 0 ||
			c.SignCount != 1 || !c.UserVerified || c.AttestationFormat != string(att) ||
			len(c.Transports) != 2 || c.Transports[0] != "usb" || c.Transports[1] != "nfc" {
			t.Fatalf("%s: stored %+v", att, c)
		}
	}
}

func TestExcludedAuthenticatorRefusesReenrollment(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	if _, err := f.tryEnroll(f.auth); !errors.Is(err, approvaltest.ErrNoCredential) {
		t.Fatalf("second enrollment of the same authenticator: %v", err)
	}
}

func TestChallengeConstruction(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	var o struct {
		Challenge        string `json:"challenge"`
		RPID             string `json:"rpId"`
		UserVerification string `json:"userVerification"`
		Timeout          int    `json:"timeout"`
		Allow            []struct {
			ID         string   `json:"id"`
			Type       string   `json:"type"`
			Transports []string `json:"transports"`
		} `json:"allowCredentials"`
	}
	if err := json.Unmarshal(ch.RequestOptions, &o); err != nil {
		t.Fatal(err)
	}
	wire, err := base64.RawURLEncoding.DecodeString(o.Challenge)
	if err != nil || len(wire) != 64 {
		t.Fatalf("challenge %q: %d bytes, %v", o.Challenge, len(wire), err)
	}
	hash, _ := approval.ActionHash(testTool, []byte(testArgs), testServerID)
	if !bytes.Equal(wire[32:], hash[:]) {
		t.Fatal("challenge does not end with the action hash")
	}
	if o.RPID != testRPID || o.UserVerification != "required" || o.Timeout != 60000 {
		t.Fatalf("options %s", ch.RequestOptions)
	}
	if len(o.Allow) != 1 || o.Allow[0].Type != "public-key" || o.Allow[0].Transports[0] != "usb" {
		t.Fatalf("allowCredentials %+v", o.Allow)
	}
	if !ch.ExpiresAt.Equal(f.clock.Now().Add(60 * time.Second)) {
		t.Fatalf("expiresAt %v", ch.ExpiresAt)
	}
	if ch.DisplayText != "Allow the tool \"delete_resource\" to run with these arguments:\n  resourceId: \"abc123\"\n" {
		t.Fatalf("displayText %q", ch.DisplayText)
	}
	// Fresh nonce and ID per challenge, even for identical arguments.
	seen := map[string]bool{string(wire[:32]): true}
	ids := map[string]bool{ch.ChallengeID: true}
	for i := 0; i < 50; i++ {
		c := f.challenge(testTool, testArgs)
		if err := json.Unmarshal(c.RequestOptions, &o); err != nil {
			t.Fatal(err)
		}
		w, _ := base64.RawURLEncoding.DecodeString(o.Challenge)
		if seen[string(w[:32])] || ids[c.ChallengeID] {
			t.Fatal("repeated nonce or challenge ID")
		}
		seen[string(w[:32])], ids[c.ChallengeID] = true, true
	}
}

func TestDescribeFunction(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	err := f.gate.Require("wire", approval.ToolPolicy{Describe: func(tool string, args json.RawMessage) (string, error) {
		var a struct{ Amount string }
		if err := json.Unmarshal(args, &a); err != nil || a.Amount == "" {
			return "", errors.New("no amount")
		}
		return "Send " + a.Amount + " to the account on file", nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ch := f.challenge("wire", `{"Amount":"EUR 10"}`)
	if ch.DisplayText != "Send EUR 10 to the account on file" {
		t.Fatalf("displayText %q", ch.DisplayText)
	}
	if _, err := f.gate.CreateChallenge(context.Background(), f.user, "wire", json.RawMessage(`{}`)); !errors.Is(err, approval.ErrInvalidArguments) {
		t.Fatalf("describe error: %v", err)
	}
	f.evidence(ch)
	if p := f.auth.Prompts(); p[len(p)-1] != ch.DisplayText {
		t.Fatalf("authenticator saw %q", p[len(p)-1])
	}
}

// TestDisplayTextShowsHiddenRunes: runes that render as nothing or reorder
// their neighbours reach the user as visible escapes, in the default text
// and in a Describe function's; a custom text keeps its newlines.
func TestDisplayTextShowsHiddenRunes(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	for _, c := range []struct{ args, want string }{
		// U+202E RIGHT-TO-LEFT OVERRIDE would show "report_exe.txt".
		{`{"path":"report_\u202etxt.exe"}`, `path: "report_\u202etxt.exe"`},
		{"{\"path\":\"report_\u202etxt.exe\"}", `path: "report_\u202etxt.exe"`},
		// Zero-width space, word joiner, line separator, BOM, a variation
		// selector, a tag character (astral, as a surrogate pair).
		{"{\"to\":\"ab\u200bc\u2060d\u2028e\ufefff\ufe0fg\U000e0041\"}", `to: "ab\u200bc\u2060d\u2028e\ufefff\ufe0fg\udb40\udc41"`},
		// A control character is escaped by JCS already.
		{`{"a":"x\u0007y"}`, `a: "x\u0007y"`},
		// Visible text is left alone.
		{`{"name":"Zoë 東京 👍"}`, `name: "Zoë 東京 👍"`},
	} {
		ch := f.challenge(testTool, c.args)
		want := `Allow the tool "` + testTool + "\" to run with these arguments:\n  " + c.want + "\n"
		if ch.DisplayText != want {
			t.Errorf("args %q:\n got %q\nwant %q", c.args, ch.DisplayText, want)
		}
		// DefaultDescribe alone, as tool authors may call it, escapes too.
		if text, err := approval.DefaultDescribe(testTool, json.RawMessage(c.args)); err != nil || text != want {
			t.Errorf("DefaultDescribe(%q) = %q, %v", c.args, text, err)
		}
	}

	err := f.gate.Require("wire", approval.ToolPolicy{Describe: func(tool string, args json.RawMessage) (string, error) {
		var a struct{ To string }
		if err := json.Unmarshal(args, &a); err != nil {
			return "", err
		}
		return "Send EUR 10\nto " + a.To + "\t(IBAN)\xff", nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	ch := f.challenge("wire", "{\"To\":\"DE89\u202e3704\"}")
	if want := "Send EUR 10\nto DE89\\u202e3704\t(IBAN)\\ufffd"; ch.DisplayText != want {
		t.Fatalf("custom displayText %q, want %q", ch.DisplayText, want)
	}
}

// TestAuthenticatorClassFiltering: cross-platform excludes internal-only
// (and transport-less) credentials; platform accepts all (§4.7).
func TestAuthenticatorClassFiltering(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.gate.Require("platform_tool", approval.ToolPolicy{Class: approval.ClassPlatform}); err != nil {
		t.Fatal(err)
	}
	enrolled := map[string]string{}
	for _, tr := range [][]string{{"internal"}, {"usb"}, {"hybrid", "internal"}, {}} {
		a := approvaltest.New(testOrigin, &approvaltest.Options{Transports: tr})
		res, err := f.tryEnroll(a)
		if err != nil {
			t.Fatal(err)
		}
		enrolled[res.CredentialID] = jsonString(tr)
	}
	allowed := func(tool string) map[string]bool {
		var o struct {
			Allow []struct{ ID string } `json:"allowCredentials"`
		}
		_ = json.Unmarshal(f.challenge(tool, `{}`).RequestOptions, &o)
		out := map[string]bool{}
		for _, a := range o.Allow {
			out[enrolled[a.ID]] = true
		}
		return out
	}
	cross := allowed(testTool)
	if len(cross) != 2 || !cross[`["usb"]`] || !cross[`["hybrid","internal"]`] {
		t.Fatalf("cross-platform allows %v", cross)
	}
	if plat := allowed("platform_tool"); len(plat) != 4 {
		t.Fatalf("platform allows %v", plat)
	}
	for _, c := range []struct {
		class      approval.Class
		transports []string
		want       bool
	}{
		{approval.ClassCrossPlatform, []string{"internal"}, false},
		{"", []string{"internal"}, false},
		{approval.ClassCrossPlatform, []string{"ble"}, true},
		{approval.ClassCrossPlatform, nil, false},
		{approval.ClassPlatform, nil, true},
	} {
		if got := approval.Eligible(c.class, c.transports); got != c.want {
			t.Errorf("Eligible(%q, %v) = %v", c.class, c.transports, got)
		}
	}
}

func TestPlatformToolApprovesWithInternalCredential(t *testing.T) {
	f := newFixture(t, &fixtureOpts{class: approval.ClassPlatform, auth: &approvaltest.Options{Transports: []string{"internal"}}})
	f.enroll()
	if _, err := f.verify(testTool, testArgs, f.evidence(f.challenge(testTool, testArgs))); err != nil {
		t.Fatal(err)
	}
}

func TestToolMetaParsing(t *testing.T) {
	for raw, want := range map[string]approval.Class{
		`{"required":"verified"}`:                                       approval.ClassCrossPlatform,
		`{"required":"verified","authenticatorClass":"platform"}`:       approval.ClassPlatform,
		`{"required":"verified","authenticatorClass":"cross-platform"}`: approval.ClassCrossPlatform,
		`{"required":"verified","future":{"x":1}}`:                      approval.ClassCrossPlatform,
	} {
		m, ok := approval.ParseToolMeta([]byte(raw))
		if !ok || m.AuthenticatorClass != want {
			t.Errorf("%s: ok=%v class=%q", raw, ok, m.AuthenticatorClass)
		}
	}
	for _, raw := range []string{`{}`, `{"required":"optional"}`, `"verified"`, `null`} {
		if _, ok := approval.ParseToolMeta([]byte(raw)); ok {
			t.Errorf("%s parsed as an annotation", raw)
		}
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	if string(b) == "null" {
		return "[]"
	}
	return string(b)
}

// TestUnsolicitedExtensionOutputsRejected: the Gate requests no
// extensions, and go-webauthn's default strictness is kept, so an
// assertion reporting a client extension output fails verification.
func TestUnsolicitedExtensionOutputsRejected(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	ev := f.evidence(ch)
	var e approval.Evidence
	_ = json.Unmarshal(ev, &e)
	var resp map[string]any
	_ = json.Unmarshal(e.Response, &resp)
	resp["clientExtensionResults"] = map[string]any{"credProps": map[string]any{"rk": true}}
	raw, _ := json.Marshal(resp)
	f.wantDenied(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, raw), approval.ReasonSignatureFailed)
	if _, err := f.verify(testTool, testArgs, ev); err != nil {
		t.Fatalf("the unmodified assertion: %v", err)
	}
}
