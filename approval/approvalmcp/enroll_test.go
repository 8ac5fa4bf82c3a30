package approvalmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/approval"
	"github.com/gatehouse-dev/gatehouse/approval/approvalclient"
	"github.com/gatehouse-dev/gatehouse/approval/approvalmcp"
	"github.com/gatehouse-dev/gatehouse/approval/approvaltest"
)

const (
	enrollRP     = "gatehouse.test"
	enrollOrigin = "https://gatehouse.test"
)

var alice = approval.NewUser("user:alice")

// enrollServer serves g's methods over an in-memory go-sdk connection for
// alice, with the given policy, and returns a connected client session and
// an approvalclient for the software authenticator a.
func enrollServer(t *testing.T, g *approval.Gate, policy approvalmcp.EnrollmentPolicy, a *approvaltest.Authenticator) (*mcp.ClientSession, *approvalclient.Client) {
	t.Helper()
	srv, err := approvalmcp.New(g, &approvalmcp.Options{Enrollment: policy})
	if err != nil {
		t.Fatal(err)
	}
	caps := &mcp.ServerCapabilities{}
	approvalmcp.AddCapability(caps)
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "v0"}, &mcp.ServerOptions{Capabilities: caps})
	if err := srv.Register(server); err != nil {
		t.Fatal(err)
	}
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(approvalmcp.WithUser(ctx, alice), method, req)
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil)
	ac, err := approvalclient.New(client, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ac
}

func enrollGate(t *testing.T) *approval.Gate {
	t.Helper()
	g, err := approval.New(approval.Config{ServerID: "urn:uuid:approvalmcp-enroll-test", RPID: enrollRP, Origins: []string{enrollOrigin}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newAuthenticator(t *testing.T) *approvaltest.Authenticator {
	t.Helper()
	return approvaltest.New(enrollOrigin, nil)
}

// enrollOutOfBand enrolls a through the Gate's Go API, as a page the server
// hosts would.
func enrollOutOfBand(t *testing.T, g *approval.Gate, a *approvaltest.Authenticator) {
	t.Helper()
	ctx := context.Background()
	begin, err := g.BeginEnrollment(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := a.Create(ctx, begin.Options)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.FinishEnrollment(ctx, alice, resp); err != nil {
		t.Fatal(err)
	}
}

func wantNotPermitted(t *testing.T, err error) {
	t.Helper()
	var ae *approval.Error
	if !errors.As(err, &ae) || ae.Reason != approvalmcp.ReasonEnrollmentNotPermitted {
		t.Fatalf("got %v, want -32001 %s", err, approvalmcp.ReasonEnrollmentNotPermitted)
	}
}

func credentialCount(t *testing.T, g *approval.Gate) int {
	t.Helper()
	cs, err := g.Credentials(context.Background(), alice)
	if err != nil {
		t.Fatal(err)
	}
	return len(cs)
}

// The default policy: the first credential over MCP, then no more — a
// client cannot add a passkey of its own once the user has one.
func TestEnrollFirstOnly(t *testing.T) {
	g := enrollGate(t)
	human, agent := newAuthenticator(t), newAuthenticator(t)
	cs, ac := enrollServer(t, g, approvalmcp.EnrollFirstOnly, human)
	if _, err := ac.Enroll(context.Background(), cs); err != nil {
		t.Fatalf("first enrollment: %v", err)
	}
	cs2, ac2 := enrollServer(t, g, approvalmcp.EnrollFirstOnly, agent)
	_, err := ac2.Enroll(context.Background(), cs2)
	wantNotPermitted(t, err)
	if n := credentialCount(t, g); n != 1 {
		t.Fatalf("%d credentials enrolled, want 1", n)
	}
	// Out of band still works.
	enrollOutOfBand(t, g, newAuthenticator(t))
	if n := credentialCount(t, g); n != 2 {
		t.Fatalf("%d credentials after out-of-band enrollment, want 2", n)
	}
}

// A credential enrolled between begin and finish stops the finish.
func TestEnrollFirstOnlyRecheckedAtFinish(t *testing.T) {
	g := enrollGate(t)
	agent := newAuthenticator(t)
	cs, _ := enrollServer(t, g, approvalmcp.EnrollFirstOnly, agent)
	ctx := context.Background()
	begin, err := mcp.CallCustomMethod[*approvalmcp.EnrollBeginParams, *approvalmcp.EnrollBeginResult](ctx, cs, approval.MethodEnrollBegin, &approvalmcp.EnrollBeginParams{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := agent.Create(ctx, begin.Options)
	if err != nil {
		t.Fatal(err)
	}
	enrollOutOfBand(t, g, newAuthenticator(t))
	_, err = mcp.CallCustomMethod[*approvalmcp.EnrollFinishParams, *approvalmcp.EnrollFinishResult](ctx, cs, approval.MethodEnrollFinish,
		&approvalmcp.EnrollFinishParams{EnrollFinishParams: approval.EnrollFinishParams{Response: resp}})
	wantNotPermitted(t, approvalclient.Wrap(err))
	if n := credentialCount(t, g); n != 1 {
		t.Fatalf("%d credentials enrolled, want 1", n)
	}
}

// EnrollOutOfBand refuses both methods; the Go API enrolls, and the
// credential approves calls.
func TestEnrollOutOfBand(t *testing.T) {
	g := enrollGate(t)
	human := newAuthenticator(t)
	cs, ac := enrollServer(t, g, approvalmcp.EnrollOutOfBand, human)
	ctx := context.Background()
	_, err := ac.Enroll(ctx, cs)
	wantNotPermitted(t, err)
	_, err = mcp.CallCustomMethod[*approvalmcp.EnrollFinishParams, *approvalmcp.EnrollFinishResult](ctx, cs, approval.MethodEnrollFinish,
		&approvalmcp.EnrollFinishParams{EnrollFinishParams: approval.EnrollFinishParams{Response: json.RawMessage(`{"id":"AA"}`)}})
	wantNotPermitted(t, approvalclient.Wrap(err))
	if n := credentialCount(t, g); n != 0 {
		t.Fatalf("%d credentials enrolled over MCP", n)
	}
	enrollOutOfBand(t, g, human)
	if err := g.Require("t", approval.ToolPolicy{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateChallenge(ctx, alice, "t", json.RawMessage(`{}`)); err != nil {
		t.Fatalf("challenge for the out-of-band credential: %v", err)
	}
}

// EnrollOpen is SEP-2672 as written: any number over MCP.
func TestEnrollOpen(t *testing.T) {
	g := enrollGate(t)
	for i := 0; i < 3; i++ {
		cs, ac := enrollServer(t, g, approvalmcp.EnrollOpen, newAuthenticator(t))
		if _, err := ac.Enroll(context.Background(), cs); err != nil {
			t.Fatalf("enrollment %d: %v", i, err)
		}
	}
	if n := credentialCount(t, g); n != 3 {
		t.Fatalf("%d credentials, want 3", n)
	}
}

func TestEnrollmentPolicyValidated(t *testing.T) {
	g := enrollGate(t)
	for _, p := range []approvalmcp.EnrollmentPolicy{-1, approvalmcp.EnrollOpen + 1} {
		if _, err := approvalmcp.New(g, &approvalmcp.Options{Enrollment: p}); !errors.Is(err, approval.ErrInvalidOptions) {
			t.Errorf("policy %d: %v", p, err)
		}
	}
}

// staleList answers List with nothing, as a check made before another
// enrollment's write would: only the atomic AddFirst can stop a second
// credential then.
type staleList struct {
	*approval.MemoryCredentialStore
}

func (staleList) List(context.Context, []byte) ([]approval.Credential, error) { return nil, nil }

// Two enrollments that both passed the "no credential yet" check (a
// compromised client finishing its own next to the user's) land one
// credential, not two.
func TestEnrollFirstOnlyAtomicAtFinish(t *testing.T) {
	mem, _ := approval.NewMemoryCredentialStore(nil)
	g, err := approval.New(approval.Config{ServerID: "urn:uuid:approvalmcp-enroll-test", RPID: enrollRP, Origins: []string{enrollOrigin}},
		&approval.Options{Credentials: staleList{mem}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var responses []json.RawMessage
	var sessions []*mcp.ClientSession
	for i := 0; i < 2; i++ {
		a := newAuthenticator(t)
		cs, _ := enrollServer(t, g, approvalmcp.EnrollFirstOnly, a)
		begin, err := mcp.CallCustomMethod[*approvalmcp.EnrollBeginParams, *approvalmcp.EnrollBeginResult](ctx, cs, approval.MethodEnrollBegin, &approvalmcp.EnrollBeginParams{})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := a.Create(ctx, begin.Options)
		if err != nil {
			t.Fatal(err)
		}
		responses, sessions = append(responses, resp), append(sessions, cs)
	}
	finish := func(i int) error {
		_, err := mcp.CallCustomMethod[*approvalmcp.EnrollFinishParams, *approvalmcp.EnrollFinishResult](ctx, sessions[i], approval.MethodEnrollFinish,
			&approvalmcp.EnrollFinishParams{EnrollFinishParams: approval.EnrollFinishParams{Response: responses[i]}})
		return approvalclient.Wrap(err)
	}
	if err := finish(0); err != nil {
		t.Fatalf("first finish: %v", err)
	}
	wantNotPermitted(t, finish(1))
	if l, _ := mem.List(ctx, alice.Handle); len(l) != 1 {
		t.Fatalf("%d credentials enrolled, want 1", len(l))
	}
}
