package approval_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
	"github.com/gatehouse-dev/gatehouse/approval/storetest"
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

// plainCredentials hides AddFirst: a third-party store that cannot add a
// first credential atomically. Its List is slow, which widens the window
// between the Gate's check and its write that the Gate's locks must close.
type plainCredentials struct{ approval.CredentialStore }

func (p plainCredentials) List(ctx context.Context, user []byte) ([]approval.Credential, error) {
	l, err := p.CredentialStore.List(ctx, user)
	time.Sleep(2 * time.Millisecond) // the answer may be stale by the time it arrives
	return l, err
}

// TestFinishFirstEnrollment: a second credential is refused with
// ErrHasCredentials; of concurrent first enrollments one lands, with the
// module's stores (AddFirst) and with a store without AddFirst (the Gate's
// own locks).
func TestFinishFirstEnrollment(t *testing.T) {
	for _, wrap := range []bool{false, true} {
		mem, _ := approval.NewMemoryCredentialStore(nil)
		var creds approval.CredentialStore = mem
		if wrap {
			creds = plainCredentials{mem}
		}
		f := newFixture(t, &fixtureOpts{credentials: creds})
		ctx := context.Background()
		const n = 20
		responses := make([]json.RawMessage, n)
		for i := range responses {
			begin, err := f.gate.BeginEnrollment(ctx, f.user)
			if err != nil {
				t.Fatal(err)
			}
			if responses[i], err = approvaltest.New(testOrigin, nil).Create(ctx, begin.Options); err != nil {
				t.Fatal(err)
			}
		}
		wins, refused := storetest.Race(t, n, approval.ErrHasCredentials, func(i int) error {
			_, err := f.gate.FinishFirstEnrollment(ctx, f.user, responses[i])
			return err
		})
		if wins != 1 || refused != n-1 {
			t.Fatalf("without AddFirst %v: %d of %d first enrollments landed, %d refused", wrap, wins, n, refused)
		}
		if l, _ := mem.List(ctx, f.user.Handle); len(l) != 1 {
			t.Fatalf("without AddFirst %v: %d credentials stored", wrap, len(l))
		}
	}
}
