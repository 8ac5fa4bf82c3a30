package approval_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

// Enrollment-finish reasons of SEP-2672 §4.10.

func TestReasonCredentialAlreadyEnrolled(t *testing.T) {
	id := []byte("the-same-credential-id-every-time")
	f := newFixture(t, &fixtureOpts{auth: &approvaltest.Options{IgnoreExcludeList: true, CredentialID: func() []byte { return id }}})
	f.enroll()
	_, err := f.tryEnroll(f.auth)
	wantReason(t, err, approval.ReasonCredentialAlreadyEnrolled)
	// Also when another user tries to claim the credential ID.
	begin, _ := f.gate.BeginEnrollment(context.Background(), approval.NewUser("agent-bob"))
	reg, _ := f.auth.Create(context.Background(), begin.Options)
	_, err = f.gate.FinishEnrollment(context.Background(), approval.NewUser("agent-bob"), reg)
	wantReason(t, err, approval.ReasonCredentialAlreadyEnrolled)
	creds, _ := f.creds.List(context.Background(), f.user.Handle)
	if len(creds) != 1 {
		t.Fatalf("alice has %d credentials, want 1", len(creds))
	}
}

func TestReasonNoPendingEnrollment(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	// A response to a challenge the server never issued.
	forged := `{"rp":{"id":"` + testRPID + `"},"user":{"id":"` + base64.RawURLEncoding.EncodeToString(f.user.Handle) + `"},"challenge":"` + strings.Repeat("A", 43) + `"}`
	reg, err := f.auth.Create(ctx, json.RawMessage(forged))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.gate.FinishEnrollment(ctx, f.user, reg)
	wantReason(t, err, approval.ReasonNoPendingEnrollment)

	// Replaying a completed enrollment.
	begin, _ := f.gate.BeginEnrollment(ctx, f.user)
	reg, _ = f.auth.Create(ctx, begin.Options)
	if _, err := f.gate.FinishEnrollment(ctx, f.user, reg); err != nil {
		t.Fatal(err)
	}
	_, err = f.gate.FinishEnrollment(ctx, f.user, reg)
	wantReason(t, err, approval.ReasonNoPendingEnrollment)

	// Expired, and finished by another user.
	begin, _ = f.gate.BeginEnrollment(ctx, f.user)
	reg, _ = approvaltest.New(testOrigin, nil).Create(ctx, begin.Options)
	_, err = f.gate.FinishEnrollment(ctx, approval.NewUser("agent-bob"), reg)
	wantReason(t, err, approval.ReasonNoPendingEnrollment)
	f.clock.Advance(approval.DefaultEnrollmentTTL)
	_, err = f.gate.FinishEnrollment(ctx, f.user, reg)
	wantReason(t, err, approval.ReasonNoPendingEnrollment)
}

func TestReasonVerificationFailed(t *testing.T) {
	f := newFixture(t, nil)
	// Presence-only authenticator: UV required at enrollment.
	_, err := f.tryEnroll(approvaltest.New(testOrigin, &approvaltest.Options{NoUserVerification: true}))
	wantReason(t, err, approval.ReasonVerificationFailed)
	// Wrong origin.
	_, err = f.tryEnroll(approvaltest.New("https://evil.test", nil))
	wantReason(t, err, approval.ReasonVerificationFailed)
	// Not a registration response at all.
	_, err = f.gate.FinishEnrollment(context.Background(), f.user, json.RawMessage(`{"id":"x"}`))
	wantReason(t, err, approval.ReasonVerificationFailed)
	// Packed self-attestation with a broken signature.
	begin, _ := f.gate.BeginEnrollment(context.Background(), f.user)
	reg, _ := approvaltest.New(testOrigin, &approvaltest.Options{Attestation: approvaltest.AttestationPacked}).Create(context.Background(), begin.Options)
	_, err = f.gate.FinishEnrollment(context.Background(), f.user, tamperReg(t, reg))
	wantReason(t, err, approval.ReasonVerificationFailed)
	if creds, _ := f.creds.List(context.Background(), f.user.Handle); len(creds) != 0 {
		t.Fatalf("%d credentials persisted after failed enrollments", len(creds))
	}
}

// tamperReg flips a byte inside the attestation object's signature region
// (its last bytes are the packed signature's).
func tamperReg(t testing.TB, reg json.RawMessage) json.RawMessage {
	t.Helper()
	var resp map[string]any
	_ = json.Unmarshal(reg, &resp)
	inner := resp["response"].(map[string]any)
	b, _ := base64.RawURLEncoding.DecodeString(inner["attestationObject"].(string))
	idx := strings.Index(string(b), "sig") + 6
	b[idx] ^= 0x01
	inner["attestationObject"] = base64.RawURLEncoding.EncodeToString(b)
	out, _ := json.Marshal(resp)
	return out
}
