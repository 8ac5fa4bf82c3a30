package consent_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// TestProofBindsWholeRequest (fault 4): an approval of read_file on server
// "files" for agent-1 must not verify for any other request travelling with
// it: another tool, server, agent, expiry, description or policy rule, even
// with the same parameters, nonce and id.
func TestProofBindsWholeRequest(t *testing.T) {
	params := map[string]any{"path": "/srv/report.txt"}
	mutations := map[string]func(r *consent.ConsentRequest){
		"tool":        func(r *consent.ConsentRequest) { r.Action.Tool = "delete_file" },
		"server":      func(r *consent.ConsentRequest) { r.Action.Server = "prod" },
		"agent":       func(r *consent.ConsentRequest) { r.Agent.ID = "agent-2" },
		"expiry":      func(r *consent.ConsentRequest) { r.ExpiresAt = r.ExpiresAt.Add(time.Hour) },
		"description": func(r *consent.ConsentRequest) { r.Action.Description = "harmless" },
		"risk":        func(r *consent.ConsentRequest) { r.Action.RiskLevel = policy.RiskLow },
		"rule":        func(r *consent.ConsentRequest) { r.Policy.RuleID = "other" },
		"all of them": func(r *consent.ConsentRequest) {
			r.Action.Tool, r.Action.Server, r.Agent.ID, r.ExpiresAt = "delete_file", "prod", "agent-2", r.ExpiresAt.Add(time.Hour)
		},
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			c := newClock()
			signer := mustSigner(t, key(7))
			req, err := consent.NewConsentRequest(consent.Action{Tool: "read_file", Server: "files", Category: policy.CategoryRead,
				RiskLevel: policy.RiskHigh, Parameters: params}, consent.Agent{ID: "agent-1"}, consent.PolicyRef{RuleID: "r1"}, c.Now(), time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			resp := respond(t, signer, c, req, consent.Approved, nil)
			v, err := consent.NewVerifier([]ed25519.PublicKey{signer.PublicKey()}, memNonces(t, c), &consent.VerifierOptions{Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			forged := *req
			mutate(&forged)
			err = v.Verify(context.Background(), &forged, resp, forged.Action.Tool, params)
			if !errors.Is(err, consent.ErrRequestMismatch) {
				t.Fatalf("proof for another request: %v, want ErrRequestMismatch", err)
			}
			// The genuine request still verifies (the refusal used no nonce).
			if err := v.Verify(context.Background(), req, resp, "read_file", params); err != nil {
				t.Fatalf("genuine request: %v", err)
			}
		})
	}
}

// TestAttestationIsSigned: a client-attested proof cannot be relabelled as a
// human's (or its channel changed) without breaking the signature; nor can
// it name another approver or drop single use (red team of issue 16: ACP
// §6.2 leaves approver.id and conditions.single_use unsigned, and a proof
// an intern approved verified as the admin's).
func TestAttestationIsSigned(t *testing.T) {
	c := newClock()
	signer := mustSigner(t, key(8))
	params := map[string]any{"to": "bob@example.com"}
	req := newRequest(t, c, params)
	resp := &consent.ConsentResponse{RequestID: req.ID, Timestamp: c.Now(), Decision: consent.Approved, Nonce: req.Nonce,
		Approver:   consent.Approver{ID: "mcp-client:Alice", Channel: "mcp-elicitation", Attestation: consent.AttestedClient},
		Conditions: consent.Conditions{ValidUntil: c.Now().Add(time.Minute), SingleUse: true}}
	if err := signer.Sign(req, resp); err != nil {
		t.Fatal(err)
	}
	v, _ := consent.NewVerifier([]ed25519.PublicKey{signer.PublicKey()}, memNonces(t, c), &consent.VerifierOptions{Now: c.Now})
	for name, relabel := range map[string]func(*consent.ConsentResponse){
		"attestation": func(r *consent.ConsentResponse) { r.Approver.Attestation = consent.AttestedHuman },
		"channel":     func(r *consent.ConsentResponse) { r.Approver.Channel = "terminal" },
		"approver id": func(r *consent.ConsentResponse) { r.Approver.ID = "mcp-client:Admin" },
		"single use":  func(r *consent.ConsentResponse) { r.Conditions.SingleUse = false },
	} {
		forged := *resp
		relabel(&forged)
		if err := v.Verify(context.Background(), req, &forged, "send_email", params); !errors.Is(err, consent.ErrBadSignature) {
			t.Errorf("%s relabelled: %v, want ErrBadSignature", name, err)
		}
	}
	if err := v.Verify(context.Background(), req, resp, "send_email", params); err != nil {
		t.Fatal(err)
	}
}

// TestSummaryShowsEveryArgument (fault 5): a long "body" first in the agent's
// key order no longer hides "to" after a cut; invisible and bidi runes are
// escaped; the secrets a call would receive are named; a call whose names
// cannot all be shown is not asked about.
func TestSummaryShowsEveryArgument(t *testing.T) {
	c := newClock()
	req := newRequest(t, c, map[string]any{
		"body": strings.Repeat("Dear team, ", 500), "to": "attacker@evil.test", "subject": "inv\u202eoice\u200b",
		"token": vault.SecretRef("github"),
		// Red team of fault 5: the same one level down.
		"reply": map[string]any{"body": strings.Repeat("Dear team, ", 500), "to": "bcc@evil.test"},
	})
	s, err := consent.Prompt(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`to: "attacker@evil.test"`, `subject: "inv\u202eoice\u200b"`, "more bytes not shown)", "secrets: github",
		"reply: (object, 2 members)", `    to: "bcc@evil.test"`} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %s:\n%s", want, s)
		}
	}
	if strings.ContainsAny(s, "\u202e\u200b") {
		t.Errorf("raw invisible runes in\n%s", s)
	}
	many := map[string]any{}
	for i := range 400 {
		many[fmt.Sprintf("argument_%03d", i)] = i
	}
	req = newRequest(t, c, many)
	if _, err := consent.Prompt(req); !errors.Is(err, consent.ErrInvalidRequest) {
		t.Fatalf("400 arguments: %v, want a refusal", err)
	}
	asker, err := consent.NewAsker(channelFunc(func(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
		t.Error("asked about a call that cannot be shown")
		return consent.Reply{Decision: consent.Approved, Attestation: consent.AttestedHuman}, nil
	}), mustSigner(t, key(9)), memNonces(t, c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans, err := asker.Ask(context.Background(), consent.Request{Tool: "send_email", Args: many}); err == nil || ans.Approved() {
		t.Fatalf("Ask: %+v, %v", ans, err)
	}
}

type channelFunc func(context.Context, *consent.ConsentRequest) (consent.Reply, error)

func (channelFunc) Name() string { return "func" }
func (f channelFunc) Ask(ctx context.Context, r *consent.ConsentRequest) (consent.Reply, error) {
	return f(ctx, r)
}

// TestWebhookCarriesTheRenderedPrompt: the webhook body carries the text
// every channel shows (display_text), so a receiver need not render the
// agent's parameters itself.
func TestWebhookCarriesTheRenderedPrompt(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
		rw.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	w, err := webhook.New(&webhook.Options{URL: srv.URL, Secret: webhook.NewSecret()})
	if err != nil {
		t.Fatal(err)
	}
	req := newRequest(t, newClock(), map[string]any{"body": strings.Repeat("x", 9000), "to": "attacker@evil.test\u202e"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	go w.Ask(ctx, req)
	var body struct {
		ID          string `json:"id"`
		DisplayText string `json:"display_text"`
	}
	if err := json.Unmarshal([]byte(<-got), &body); err != nil {
		t.Fatal(err)
	}
	if body.ID != req.ID || body.DisplayText != consent.Summary(req) || !strings.Contains(body.DisplayText, `to: "attacker@evil.test\u202e"`) {
		t.Fatalf("display_text %q", body.DisplayText)
	}
}

// TestSummaryHeaderEscapesBlankRunes (red team of issue 16): the header
// (agent, tool, reason) escapes what the argument lines escape, including
// runes Unicode calls printable that render as nothing.
func TestSummaryHeaderEscapesBlankRunes(t *testing.T) {
	c := newClock()
	req := newRequest(t, c, map[string]any{"a": 1})
	req.Agent = consent.Agent{ID: "client:ci\u3164\u3164", Name: "ci\u115f\ufe0f\u034f"}
	req.Action.Description = "because\u3164"
	s := consent.Summary(req)
	for _, r := range []rune{'\u3164', '\u115f', '\ufe0f', '\u034f'} {
		if strings.ContainsRune(s, r) {
			t.Errorf("raw U+%04X in\n%s", r, s)
		}
	}
	if !strings.Contains(s, `ci\u3164\u3164`) || !strings.Contains(s, `because\u3164`) {
		t.Errorf("escapes missing:\n%s", s)
	}
	// Near miss: ordinary text, accents and CJK are shown as they are.
	req.Agent = consent.Agent{ID: "client:café-東京"}
	if s := consent.Summary(req); !strings.Contains(s, "client:café-東京") {
		t.Errorf("plain text escaped:\n%s", s)
	}
}
