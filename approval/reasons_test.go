package approval_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// gatedCall is a minimal tools/call handler: the tool runs only when Verify
// returns nil. It reports whether the tool ran.
func (f *fixture) gatedCall(tool, args string, ev json.RawMessage) (ran bool, err error) {
	if _, err := f.verify(tool, args, ev); err != nil {
		return false, err
	}
	return true, nil
}

// wantDenied asserts the exact §4.10 reason and that the tool did not run.
func (f *fixture) wantDenied(tool, args string, ev json.RawMessage, r approval.Reason) {
	f.t.Helper()
	ran, err := f.gatedCall(tool, args, ev)
	if ran {
		f.t.Fatalf("tool ran, want denial %s", r)
	}
	wantReason(f.t, err, r)
	if !errors.Is(err, &approval.Error{Reason: r}) {
		f.t.Fatalf("errors.Is(err, sentinel %s) is false", r)
	}
}

func TestReasonMissingEvidence(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	f.wantDenied(testTool, testArgs, nil, approval.ReasonMissingEvidence)
	f.wantDenied(testTool, testArgs, json.RawMessage("null"), approval.ReasonMissingEvidence)
}

func TestReasonMissingEvidenceMalformed(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	for _, ev := range []string{
		`"webauthn"`, `[]`, `{}`, `{`, `42`,
		`{"method":"webauthn","response":{}}`,                          // no challengeId
		`{"method":"webauthn","challengeId":"","response":{}}`,         // empty challengeId
		`{"challengeId":"` + ch.ChallengeID + `","response":{}}`,       // no method
		`{"method":"webauthn","challengeId":"` + ch.ChallengeID + `"}`, // no response
		`{"method":7,"challengeId":"` + ch.ChallengeID + `","response":{}}`,
		`{"method":"webauthn","challengeId":"` + ch.ChallengeID + `","response":"x"}`,
		`{"Method":"webauthn","ChallengeId":"` + ch.ChallengeID + `","Response":{}}`, // keys are case-sensitive
	} {
		f.wantDenied(testTool, testArgs, json.RawMessage(ev), approval.ReasonMissingEvidence)
	}
	// The challenge was not burned by any of these.
	if _, err := f.verify(testTool, testArgs, f.evidence(ch)); err != nil {
		t.Fatalf("valid evidence after malformed ones: %v", err)
	}
}

func TestReasonUnsupportedMethod(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	ev := f.evidence(ch)
	var m map[string]any
	_ = json.Unmarshal(ev, &m)
	m["method"] = "oob-push"
	bad, _ := json.Marshal(m)
	f.wantDenied(testTool, testArgs, bad, approval.ReasonUnsupportedMethod)
}

func TestReasonChallengeUnknown(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	resp := f.assertion(ch)
	f.wantDenied(testTool, testArgs, wrapEvidence(t, "no-such-challenge", resp), approval.ReasonChallengeUnknown)

	// A challenge issued to another user is unknown to this one.
	bob := approval.NewUser("agent-bob")
	ev := wrapEvidence(t, ch.ChallengeID, resp)
	_, err := f.gate.Verify(context.Background(), bob, approval.Call{Tool: testTool, Arguments: json.RawMessage(testArgs), Evidence: ev})
	wantReason(t, err, approval.ReasonChallengeUnknown)
}

func TestReasonChallengeConsumed(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ev := f.evidence(f.challenge(testTool, testArgs))
	if ran, err := f.gatedCall(testTool, testArgs, ev); !ran || err != nil {
		t.Fatalf("first call: ran=%v err=%v", ran, err)
	}
	f.wantDenied(testTool, testArgs, ev, approval.ReasonChallengeConsumed) // replay
}

func TestReasonChallengeExpired(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ev := f.evidence(f.challenge(testTool, testArgs))
	f.clock.Advance(approval.DefaultChallengeTTL - time.Millisecond)
	f.clock.Advance(time.Millisecond) // now == expiresAt: expired (§4.8 step 6: now < expiresAt)
	f.wantDenied(testTool, testArgs, ev, approval.ReasonChallengeExpired)
}

func TestChallengeValidJustBeforeExpiry(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ev := f.evidence(f.challenge(testTool, testArgs))
	f.clock.Advance(approval.DefaultChallengeTTL - time.Millisecond)
	if _, err := f.verify(testTool, testArgs, ev); err != nil {
		t.Fatal(err)
	}
}

func TestReasonChallengeWrongTool(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ev := f.evidence(f.challenge("other_tool", testArgs))
	f.wantDenied(testTool, testArgs, ev, approval.ReasonChallengeWrongTool)
}

func TestReasonUnknownCredential(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)

	// A credential enrolled for another user signs alice's challenge.
	mallory := approvaltest.New(testOrigin, nil)
	bob := approval.NewUser("agent-bob")
	begin, err := f.gate.BeginEnrollment(context.Background(), bob)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := mallory.Create(context.Background(), begin.Options)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.gate.FinishEnrollment(context.Background(), bob, reg); err != nil {
		t.Fatal(err)
	}
	challenge := requestChallenge(t, ch)
	resp, err := mallory.Assert(mallory.CredentialIDs()[0], challenge, 5)
	if err != nil {
		t.Fatal(err)
	}
	f.wantDenied(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, resp), approval.ReasonUnknownCredential)

	// An assertion naming no decodable credential.
	f.wantDenied(testTool, testArgs, json.RawMessage(`{"method":"webauthn","challengeId":"`+ch.ChallengeID+`","response":{"id":"!!"}}`), approval.ReasonUnknownCredential)

	// Alice's own assertion still works: nothing was consumed.
	if _, err := f.verify(testTool, testArgs, f.evidence(ch)); err != nil {
		t.Fatal(err)
	}
}

func TestReasonAuthenticatorClassMismatch(t *testing.T) {
	f := newFixture(t, &fixtureOpts{class: approval.ClassPlatform, auth: &approvaltest.Options{Transports: []string{"internal"}}})
	f.enroll()
	ev := f.evidence(f.challenge(testTool, testArgs))
	// The tool's policy tightens between issuance and the call.
	if err := f.gate.Require(testTool, approval.ToolPolicy{Class: approval.ClassCrossPlatform}); err != nil {
		t.Fatal(err)
	}
	f.wantDenied(testTool, testArgs, ev, approval.ReasonAuthenticatorClassMismatch)
}

func TestReasonSignatureVerificationFailed(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	ev := f.evidence(ch)
	f.wantDenied(testTool, testArgs, tamper(t, ev, "signature"), approval.ReasonSignatureFailed)
	f.wantDenied(testTool, testArgs, tamper(t, ev, "authenticatorData"), approval.ReasonSignatureFailed)
	f.wantDenied(testTool, testArgs, tamper(t, ev, "clientDataJSON"), approval.ReasonSignatureFailed)

	// Signed over a different (well-formed) challenge.
	other := f.challenge(testTool, testArgs)
	resp, _ := f.auth.Assert(f.auth.CredentialIDs()[0], requestChallenge(t, other), 50)
	f.wantDenied(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, resp), approval.ReasonSignatureFailed)

	// Verify-before-consume: the forged submissions did not burn ch.
	if _, err := f.verify(testTool, testArgs, ev); err != nil {
		t.Fatalf("valid evidence after forgeries: %v", err)
	}
}

func TestSignatureWithoutUserVerificationFails(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	// Same key, but the UV flag is cleared at assertion time.
	ch := f.challenge(testTool, testArgs)
	ev := f.evidence(ch)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(ev, &m)
	var resp map[string]any
	_ = json.Unmarshal(m["response"], &resp)
	inner := resp["response"].(map[string]any)
	ad, _ := base64.RawURLEncoding.DecodeString(inner["authenticatorData"].(string))
	ad[32] &^= 0x04
	inner["authenticatorData"] = base64.RawURLEncoding.EncodeToString(ad)
	raw, _ := json.Marshal(resp)
	f.wantDenied(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, raw), approval.ReasonSignatureFailed)
}

func TestReasonSignatureCounterRegression(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll() // counter 1
	if _, err := f.verify(testTool, testArgs, f.evidence(f.challenge(testTool, testArgs))); err != nil {
		t.Fatal(err) // counter 2
	}
	id := f.auth.CredentialIDs()[0]
	if err := f.auth.SetCounter(id, 0); err != nil { // next assertion reports 1 < 2
		t.Fatal(err)
	}
	ch := f.challenge(testTool, testArgs)
	f.wantDenied(testTool, testArgs, f.evidence(ch), approval.ReasonCounterRegression)
	// An equal counter is a regression too (strictly greater is required).
	resp, _ := f.auth.Assert(id, requestChallenge(t, ch), 2)
	f.wantDenied(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, resp), approval.ReasonCounterRegression)
	// The challenge survives: a correct counter still approves.
	resp, _ = f.auth.Assert(id, requestChallenge(t, ch), 3)
	if _, err := f.verify(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, resp)); err != nil {
		t.Fatal(err)
	}
}

func TestCounterZeroExemption(t *testing.T) {
	f := newFixture(t, &fixtureOpts{auth: &approvaltest.Options{Counter: approvaltest.CounterZero, BackupEligible: true}})
	f.enroll()
	for i := 0; i < 3; i++ {
		if _, err := f.verify(testTool, testArgs, f.evidence(f.challenge(testTool, testArgs))); err != nil {
			t.Fatalf("approval %d with counter 0: %v", i, err)
		}
	}
	// Once a counter is seen, the check applies: 7, then 0 regresses.
	id := f.auth.CredentialIDs()[0]
	ch := f.challenge(testTool, testArgs)
	resp, _ := f.auth.Assert(id, requestChallenge(t, ch), 7)
	if _, err := f.verify(testTool, testArgs, wrapEvidence(t, ch.ChallengeID, resp)); err != nil {
		t.Fatal(err)
	}
	f.wantDenied(testTool, testArgs, f.evidence(f.challenge(testTool, testArgs)), approval.ReasonCounterRegression)
}

func TestReasonArgumentHashMismatch(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	ch := f.challenge(testTool, testArgs)
	ev := f.evidence(ch)
	for _, args := range []string{
		`{"resourceId":"abc124"}`,
		`{"resourceId":"abc123","force":true}`,
		`{}`, ``,
		`{"resourceId":"abc123","resourceId":"zzz"}`, // duplicate keys never verify
		`not json`,
	} {
		f.wantDenied(testTool, args, ev, approval.ReasonArgumentHashMismatch)
	}
	// Same logical arguments in another byte form verify (JCS).
	if _, err := f.verify(testTool, "{ \"resourceId\" : \"abc\\u0031\\u00323\" }", ev); err != nil {
		t.Fatalf("equivalent arguments: %v", err)
	}
}

func TestReasonToolNotApprovalRequired(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	_, err := f.gate.CreateChallenge(context.Background(), f.user, "read_file", json.RawMessage(`{}`))
	wantReason(t, err, approval.ReasonToolNotApprovalRequired)
	f.wantDenied("read_file", `{}`, nil, approval.ReasonToolNotApprovalRequired)
}

func TestReasonNoEligibleCredential(t *testing.T) {
	f := newFixture(t, &fixtureOpts{auth: &approvaltest.Options{Transports: []string{"internal"}}})
	_, err := f.gate.CreateChallenge(context.Background(), f.user, testTool, json.RawMessage(testArgs))
	wantReason(t, err, approval.ReasonNoEligibleCredential) // nothing enrolled
	f.enroll()
	_, err = f.gate.CreateChallenge(context.Background(), f.user, testTool, json.RawMessage(testArgs))
	wantReason(t, err, approval.ReasonNoEligibleCredential) // internal-only, cross-platform tool
}

// TestEveryReasonHasATest keeps this file honest: each §4.10 reason is
// named by a Test function above.
func TestEveryReasonHasATest(t *testing.T) {
	if len(approval.Reasons) != 16 {
		t.Fatalf("%d reasons, SEP-2672 §4.10 has 16", len(approval.Reasons))
	}
	seen := map[approval.Reason]bool{}
	for _, r := range approval.Reasons {
		if seen[r] {
			t.Fatalf("duplicate reason %s", r)
		}
		seen[r] = true
		if !errors.Is(&approval.Error{Reason: r, Detail: "x"}, &approval.Error{Reason: r}) {
			t.Fatalf("Is does not match reason %s", r)
		}
	}
}

// requestChallenge returns requestOptions.challenge of ch.
func requestChallenge(t testing.TB, ch *approval.ChallengeResult) string {
	t.Helper()
	var o struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(ch.RequestOptions, &o); err != nil {
		t.Fatal(err)
	}
	return o.Challenge
}

// tamper flips the last byte of response.response[field] in evidence ev.
func tamper(t testing.TB, ev json.RawMessage, field string) json.RawMessage {
	t.Helper()
	var e approval.Evidence
	if err := json.Unmarshal(ev, &e); err != nil {
		t.Fatal(err)
	}
	var resp map[string]any
	_ = json.Unmarshal(e.Response, &resp)
	inner := resp["response"].(map[string]any)
	b, _ := base64.RawURLEncoding.DecodeString(inner[field].(string))
	b[len(b)-1] ^= 0x01
	inner[field] = base64.RawURLEncoding.EncodeToString(b)
	e.Response, _ = json.Marshal(resp)
	out, _ := json.Marshal(e)
	return out
}

// TestReasonChallengeWrongDefinition: a challenge issued under one tool
// definition (WithDefinition) does not verify a call made under another,
// nor under none; under the same one it does.
func TestReasonChallengeWrongDefinition(t *testing.T) {
	f := newFixture(t, nil)
	f.enroll()
	issue := func(def string) json.RawMessage {
		ch, err := f.gate.CreateChallenge(approval.WithDefinition(context.Background(), def), f.user, testTool, json.RawMessage(testArgs))
		if err != nil {
			t.Fatal(err)
		}
		return f.evidence(ch)
	}
	verify := func(def string, ev json.RawMessage) error {
		_, err := f.gate.Verify(approval.WithDefinition(context.Background(), def), f.user, approval.Call{Tool: testTool, Arguments: json.RawMessage(testArgs), Evidence: ev})
		return err
	}
	wantReason(t, verify("def-b", issue("def-a")), approval.ReasonChallengeWrongTool)
	wantReason(t, verify("", issue("def-a")), approval.ReasonChallengeWrongTool)
	wantReason(t, verify("def-a", issue("")), approval.ReasonChallengeWrongTool)
	if err := verify("def-a", issue("def-a")); err != nil {
		t.Fatal(err)
	}
}
