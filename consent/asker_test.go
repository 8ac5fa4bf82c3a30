package consent_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/internal/testkit"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// The fake channel and the Asker fixture are consent/internal/testkit's.
type funcChannel = testkit.FuncChannel

func reply(d consent.Decision, mods map[string]any) funcChannel { return testkit.Reply(d, mods) }

type askerFixture = testkit.AskerFixture

func newAsker(t *testing.T, ch consent.Channel, opts *consent.AskerOptions) askerFixture {
	t.Helper()
	return testkit.NewAsker(t, ch, opts)
}

var askReq = consent.Request{
	Tool:   "ＳＥＮＤ\u200b_email",
	Args:   map[string]any{"to": "bob@example.com", "amount": json.Number("10")},
	Agent:  consent.Agent{ID: "agent-1", Name: "bot"},
	Reason: "rule r1 asks",
	RuleID: "r1",
}

func TestAskApproved(t *testing.T) {
	var seen *consent.ConsentRequest
	f := newAsker(t, funcChannel(func(_ context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
		seen = req
		return consent.Reply{Decision: consent.Approved, Approver: "alice"}, nil
	}), nil)
	r := askReq
	r.Timeout = 5 * time.Minute
	ans, err := f.Asker.Ask(context.Background(), r)
	if err != nil || !ans.Approved() || ans.Outcome != consent.OutcomeApproved {
		t.Fatalf("Ask = %+v, %v; want approved", ans, err)
	}
	if !reflect.DeepEqual(ans.Args, askReq.Args) || ans.Modified {
		t.Fatalf("Args = %v, Modified %v; want the request's arguments", ans.Args, ans.Modified)
	}
	// The channel saw an ACP request: normalized tool, classified, the
	// rule's timeout, a nonce made with the request.
	if seen.Action.Tool != "send_email" || seen.Action.Category != policy.CategoryCommunication || seen.Action.RiskLevel != policy.RiskHigh {
		t.Fatalf("request action = %+v", seen.Action)
	}
	if seen.ExpiresAt.Sub(seen.Timestamp) != 5*time.Minute || seen.Timestamp != t0 {
		t.Fatalf("timestamp %v expires %v, want t0 and t0+5m", seen.Timestamp, seen.ExpiresAt)
	}
	if ans.RequestID != seen.ID || ans.Grant.RequestID() != seen.ID || ans.Response.Nonce != seen.Nonce {
		t.Fatal("answer not tied to the request")
	}
	// The response in the answer is a real proof, now consumed.
	v, _ := consent.NewVerifier([]ed25519.PublicKey{f.Signer.PublicKey()}, memNonces(t, f.Clock), &consent.VerifierOptions{Now: f.Clock.Now})
	if err := v.Check(seen, ans.Response, "send_email", ans.Args, f.Clock.Now()); err != nil {
		t.Fatalf("answer's proof: %v", err)
	}
	if got := f.Events.Types(); !slices.Equal(got, []consent.EventType{consent.EventRequested, consent.EventApproved}) {
		t.Fatalf("events = %v", got)
	}
	e := f.Events.Events()[1]
	if e.RequestID != seen.ID || e.Approver != "alice" || e.Channel != "fake" || e.Decision != "approved" || e.ArgsHash == "" || e.Agent != "agent-1" {
		t.Fatalf("approved event = %+v", e)
	}
}

func TestAskApprovedWithModifications(t *testing.T) {
	f := newAsker(t, reply(consent.ApprovedWithModifications, map[string]any{"amount": json.Number("5")}), nil)
	ans, err := f.Asker.Ask(context.Background(), askReq)
	if err != nil || !ans.Approved() || !ans.Modified {
		t.Fatalf("Ask = %+v, %v", ans, err)
	}
	want := map[string]any{"to": "bob@example.com", "amount": json.Number("5")}
	if !reflect.DeepEqual(ans.Args, want) {
		t.Fatalf("Args = %v, want %v", ans.Args, want)
	}
	if f.Events.Events()[1].Decision != "approved_with_modifications" {
		t.Fatalf("event decision %q", f.Events.Events()[1].Decision)
	}
}

func TestAskDenied(t *testing.T) {
	f := newAsker(t, reply(consent.Denied, nil), nil)
	ans, err := f.Asker.Ask(context.Background(), askReq)
	if err != nil || ans.Approved() || ans.Outcome != consent.OutcomeDenied || ans.Args != nil || ans.Grant != nil {
		t.Fatalf("Ask = %+v, %v; want denied", ans, err)
	}
	if ans.Response == nil || ans.Response.Decision != consent.Denied {
		t.Fatal("a denial carries its signed response")
	}
	if got := f.Events.Types(); !slices.Equal(got, []consent.EventType{consent.EventRequested, consent.EventDenied}) {
		t.Fatalf("events = %v", got)
	}
}

func TestAskTimeoutExpires(t *testing.T) {
	f := newAsker(t, funcChannel(func(ctx context.Context, _ *consent.ConsentRequest) (consent.Reply, error) {
		<-ctx.Done()
		return consent.Reply{}, ctx.Err()
	}), &consent.AskerOptions{Timeout: 30 * time.Millisecond})
	ans, err := f.Asker.Ask(context.Background(), askReq)
	if err != nil || ans.Approved() || ans.Outcome != consent.OutcomeExpired {
		t.Fatalf("Ask = %+v, %v; want expired", ans, err)
	}
	if got := f.Events.Types(); !slices.Equal(got, []consent.EventType{consent.EventRequested, consent.EventExpired}) {
		t.Fatalf("events = %v", got)
	}
}

func TestAskLateApprovalExpires(t *testing.T) {
	var f askerFixture
	f = newAsker(t, funcChannel(func(_ context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
		f.Clock.Advance(req.ExpiresAt.Sub(req.Timestamp) + time.Millisecond)
		return consent.Reply{Decision: consent.Approved}, nil
	}), nil)
	ans, err := f.Asker.Ask(context.Background(), askReq)
	if err != nil || ans.Approved() || ans.Outcome != consent.OutcomeExpired {
		t.Fatalf("Ask = %+v, %v; want expired", ans, err)
	}
}

func TestAskChannelFailureDenies(t *testing.T) {
	f := newAsker(t, funcChannel(func(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
		return consent.Reply{Decision: consent.Approved}, errors.New("connection refused")
	}), nil)
	ans, err := f.Asker.Ask(context.Background(), askReq)
	if !errors.Is(err, consent.ErrChannel) || ans.Approved() || ans.Outcome != consent.OutcomeFailed {
		t.Fatalf("Ask = %+v, %v; want failed with ErrChannel", ans, err)
	}
	if got := f.Events.Types(); !slices.Equal(got, []consent.EventType{consent.EventRequested, consent.EventDenied}) {
		t.Fatalf("events = %v", got)
	}
}

func TestAskInvalidReplyDenies(t *testing.T) {
	for name, ch := range map[string]funcChannel{
		"mods with approved":    reply(consent.Approved, map[string]any{"a": 1}),
		"modified without mods": reply(consent.ApprovedWithModifications, nil),
		"unknown decision":      reply("yes", nil),
		"mods not plain json":   reply(consent.ApprovedWithModifications, map[string]any{"a": make(chan int)}),
	} {
		f := newAsker(t, ch, nil)
		ans, err := f.Asker.Ask(context.Background(), askReq)
		if err == nil || ans.Approved() || ans.Outcome != consent.OutcomeFailed {
			t.Errorf("%s: Ask = %+v, %v; want failed", name, ans, err)
		}
	}
}

func TestAskCancelledContextDenies(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newAsker(t, funcChannel(func(ctx context.Context, _ *consent.ConsentRequest) (consent.Reply, error) {
		cancel()
		<-ctx.Done()
		return consent.Reply{}, ctx.Err()
	}), nil)
	ans, err := f.Asker.Ask(ctx, askReq)
	if !errors.Is(err, context.Canceled) || ans.Approved() || ans.Outcome != consent.OutcomeFailed {
		t.Fatalf("Ask = %+v, %v; want failed with context.Canceled", ans, err)
	}
}

func TestAskEventFailureFailsClosed(t *testing.T) {
	boom := errors.New("disk full")
	t.Run("requested", func(t *testing.T) {
		var called atomic.Bool
		f := newAsker(t, funcChannel(func(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
			called.Store(true)
			return consent.Reply{Decision: consent.Approved}, nil
		}), nil)
		f.Events.Fail = map[consent.EventType]error{consent.EventRequested: boom}
		ans, err := f.Asker.Ask(context.Background(), askReq)
		if !errors.Is(err, consent.ErrAudit) || !errors.Is(err, boom) || ans.Approved() || called.Load() {
			t.Fatalf("Ask = %+v, %v, channel called %v; want failed before asking", ans, err, called.Load())
		}
	})
	t.Run("approved", func(t *testing.T) {
		f := newAsker(t, reply(consent.Approved, nil), nil)
		f.Events.Fail = map[consent.EventType]error{consent.EventApproved: boom}
		ans, err := f.Asker.Ask(context.Background(), askReq)
		if !errors.Is(err, consent.ErrAudit) || ans.Approved() || ans.Grant != nil || ans.Args != nil {
			t.Fatalf("Ask = %+v, %v; want failed", ans, err)
		}
	})
}

func TestAskInvalidRequest(t *testing.T) {
	f := newAsker(t, reply(consent.Approved, nil), nil)
	for name, r := range map[string]consent.Request{
		"empty tool":       {Tool: "\u200b "},
		"bad args":         {Tool: "send_email", Args: map[string]any{"a": "\xff"}},
		"negative timeout": {Tool: "send_email", Timeout: -time.Second},
		"bad risk":         {Tool: "send_email", Risk: "extreme"},
	} {
		ans, err := f.Asker.Ask(context.Background(), r)
		if !errors.Is(err, consent.ErrInvalidRequest) || ans.Approved() {
			t.Errorf("%s: Ask = %+v, %v; want ErrInvalidRequest", name, ans, err)
		}
	}
	if len(f.Events.Types()) != 0 {
		t.Fatalf("invalid requests emitted %v", f.Events.Types())
	}
}

func TestNewAskerOptions(t *testing.T) {
	s := mustSigner(t, key(1))
	n := memNonces(t, nil)
	ch := reply(consent.Approved, nil)
	for name, f := range map[string]func() error{
		"nil channel":      func() error { _, err := consent.NewAsker(nil, s, n, nil); return err },
		"nil signer":       func() error { _, err := consent.NewAsker(ch, nil, n, nil); return err },
		"nil nonces":       func() error { _, err := consent.NewAsker(ch, s, nil, nil); return err },
		"negative timeout": func() error { _, err := consent.NewAsker(ch, s, n, &consent.AskerOptions{Timeout: -1}); return err },
		"negative ttl":     func() error { _, err := consent.NewAsker(ch, s, n, &consent.AskerOptions{ApprovalTTL: -1}); return err },
	} {
		if err := f(); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}
