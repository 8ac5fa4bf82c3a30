// Package testkit holds the test helpers the consent packages share: a
// fake clock, deterministic keys, signers and nonce stores, and a consent
// request and response built at the clock's time. It is for tests only.
package testkit

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// T0 is the fixed start of every fake clock.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Clock is a fake clock safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at T0.
func NewClock() *Clock { return &Clock{now: T0} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Key returns a deterministic Ed25519 key from one repeated byte.
func Key(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

// MustSigner returns a signer for priv.
func MustSigner(t testing.TB, priv ed25519.PrivateKey) *consent.Signer {
	t.Helper()
	s, err := consent.NewSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// MemNonces returns a memory nonce store on c's time (the system clock
// when c is nil).
func MemNonces(t testing.TB, c *Clock) *consent.MemoryNonceStore {
	t.Helper()
	opts := &consent.MemoryNonceOptions{}
	if c != nil {
		opts.Now = c.Now
	}
	s, err := consent.NewMemoryNonceStore(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// NewRequest returns a consent request for send_email made at c's time.
func NewRequest(t testing.TB, c *Clock, params map[string]any) *consent.ConsentRequest {
	t.Helper()
	req, err := consent.NewConsentRequest(consent.Action{
		Tool: "send_email", Category: policy.CategoryCommunication, RiskLevel: policy.RiskHigh, Parameters: params,
	}, consent.Agent{ID: "agent-1"}, consent.PolicyRef{RuleID: "r1"}, c.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// Respond returns a response to req signed by s at c's time, valid for a
// minute.
func Respond(t testing.TB, s *consent.Signer, c *Clock, req *consent.ConsentRequest, d consent.Decision, mods map[string]any) *consent.ConsentResponse {
	t.Helper()
	now := c.Now()
	resp := &consent.ConsentResponse{
		RequestID:     req.ID,
		Timestamp:     now,
		Decision:      d,
		Approver:      consent.Approver{ID: "alice", Channel: "test"},
		Modifications: mods,
		Conditions:    consent.Conditions{ValidUntil: now.Add(time.Minute), SingleUse: true},
		Nonce:         req.Nonce,
	}
	if err := s.Sign(req, resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

// EventLog records events, failing those of the types in Fail; safe for
// concurrent use.
type EventLog struct {
	mu     sync.Mutex
	events []consent.Event
	Fail   map[consent.EventType]error
}

// Record records e (an OnEvent function).
func (l *EventLog) Record(_ context.Context, e consent.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	return l.Fail[e.Type]
}

// Events returns a copy of the events recorded, in order.
func (l *EventLog) Events() []consent.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]consent.Event(nil), l.events...)
}

// Types returns the types of the events recorded, in order.
func (l *EventLog) Types() []consent.EventType {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []consent.EventType
	for _, e := range l.events {
		out = append(out, e.Type)
	}
	return out
}

// FuncChannel is a Channel answering with a function.
type FuncChannel func(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error)

// Name names the fake channel.
func (FuncChannel) Name() string { return "fake" }

// Ask calls f.
func (f FuncChannel) Ask(ctx context.Context, req *consent.ConsentRequest) (consent.Reply, error) {
	return f(ctx, req)
}

// Reply is a channel that answers d (by "alice", with mods) at once.
func Reply(d consent.Decision, mods map[string]any) FuncChannel {
	return func(context.Context, *consent.ConsentRequest) (consent.Reply, error) {
		return consent.Reply{Decision: d, Approver: "alice", Modifications: mods}, nil
	}
}

// AskerFixture is an Asker on a fake clock, with its events and signer.
type AskerFixture struct {
	Asker  *consent.Asker
	Clock  *Clock
	Events *EventLog
	Signer *consent.Signer
}

// NewAsker builds an Asker on ch signed with Key(1), nonces in memory, the
// fixture's clock and event log set in opts (nil: defaults).
func NewAsker(t testing.TB, ch consent.Channel, opts *consent.AskerOptions) AskerFixture {
	t.Helper()
	f := AskerFixture{Clock: NewClock(), Events: &EventLog{}, Signer: MustSigner(t, Key(1))}
	if opts == nil {
		opts = &consent.AskerOptions{}
	}
	opts.Now, opts.OnEvent = f.Clock.Now, f.Events.Record
	a, err := consent.NewAsker(ch, f.Signer, MemNonces(t, f.Clock), opts)
	if err != nil {
		t.Fatal(err)
	}
	f.Asker = a
	return f
}
