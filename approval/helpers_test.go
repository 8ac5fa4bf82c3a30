package approval_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

const (
	testServerID = "https://mcp.gatehouse.test/mcp"
	testRPID     = "gatehouse.test"
	testOrigin   = "https://gatehouse.test"
	testTool     = "delete_resource"
	testArgs     = `{"resourceId":"abc123"}`
)

// clock is a settable clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is a Gate with one user and a software authenticator.
type fixture struct {
	t     testing.TB
	gate  *approval.Gate
	clock *clock
	user  approval.User
	auth  *approvaltest.Authenticator
	creds approval.CredentialStore
	chals approval.ChallengeStore
}

type fixtureOpts struct {
	auth        *approvaltest.Options
	class       approval.Class
	challenges  approval.ChallengeStore
	credentials approval.CredentialStore
}

func newFixture(t testing.TB, fo *fixtureOpts) *fixture {
	t.Helper()
	if fo == nil {
		fo = &fixtureOpts{}
	}
	f := &fixture{t: t, clock: newClock(), user: approval.NewUser("agent-alice")}
	f.chals = fo.challenges
	if f.chals == nil {
		f.chals, _ = approval.NewMemoryChallengeStore(nil)
	}
	f.creds = fo.credentials
	if f.creds == nil {
		f.creds, _ = approval.NewMemoryCredentialStore(nil)
	}
	g, err := approval.New(approval.Config{ServerID: testServerID, RPID: testRPID, Origins: []string{testOrigin}},
		&approval.Options{Now: f.clock.Now, Challenges: f.chals, Credentials: f.creds})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Require(testTool, approval.ToolPolicy{Class: fo.class}); err != nil {
		t.Fatal(err)
	}
	if err := g.Require("other_tool", approval.ToolPolicy{Class: fo.class}); err != nil {
		t.Fatal(err)
	}
	f.gate = g
	f.auth = approvaltest.New(testOrigin, fo.auth)
	return f
}

// enroll runs begin + authenticator + finish and fails the test on error.
func (f *fixture) enroll() *approval.EnrollFinishResult {
	f.t.Helper()
	res, err := f.tryEnroll(f.auth)
	if err != nil {
		f.t.Fatalf("enroll: %v", err)
	}
	return res
}

func (f *fixture) tryEnroll(a *approvaltest.Authenticator) (*approval.EnrollFinishResult, error) {
	ctx := context.Background()
	begin, err := f.gate.BeginEnrollment(ctx, f.user)
	if err != nil {
		return nil, err
	}
	resp, err := a.Create(ctx, begin.Options)
	if err != nil {
		return nil, err
	}
	return f.gate.FinishEnrollment(ctx, f.user, resp)
}

// challenge issues a challenge for tool/args and fails the test on error.
func (f *fixture) challenge(tool, args string) *approval.ChallengeResult {
	f.t.Helper()
	ch, err := f.gate.CreateChallenge(context.Background(), f.user, tool, json.RawMessage(args))
	if err != nil {
		f.t.Fatalf("CreateChallenge: %v", err)
	}
	return ch
}

// evidence signs ch with the authenticator and wraps it per §4.5.
func (f *fixture) evidence(ch *approval.ChallengeResult) json.RawMessage {
	f.t.Helper()
	return wrapEvidence(f.t, ch.ChallengeID, f.assertion(ch))
}

// assertion signs ch with the authenticator: the PublicKeyCredential JSON.
func (f *fixture) assertion(ch *approval.ChallengeResult) json.RawMessage {
	f.t.Helper()
	resp, err := f.auth.Get(context.Background(), ch.DisplayText, ch.RequestOptions)
	if err != nil {
		f.t.Fatalf("authenticator Get: %v", err)
	}
	return resp
}

func wrapEvidence(t testing.TB, challengeID string, resp json.RawMessage) json.RawMessage {
	t.Helper()
	ev, err := json.Marshal(approval.Evidence{Method: "webauthn", ChallengeID: challengeID, Response: resp})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func (f *fixture) verify(tool, args string, ev json.RawMessage) (*approval.Approval, error) {
	return f.gate.Verify(context.Background(), f.user, approval.Call{Tool: tool, Arguments: json.RawMessage(args), Evidence: ev})
}

// wantReason fails unless err is an *approval.Error with reason r.
func wantReason(t testing.TB, err error, r approval.Reason) {
	t.Helper()
	var e *approval.Error
	if err == nil {
		t.Fatalf("got nil error, want reason %s", r)
	}
	if !asError(err, &e) || e.Reason != r {
		t.Fatalf("got %v, want reason %s", err, r)
	}
}

func asError(err error, target **approval.Error) bool {
	e, ok := err.(*approval.Error)
	if ok {
		*target = e
	}
	return ok
}
