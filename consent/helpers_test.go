package consent_test

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

// t0 is the fixed start of every fake clock.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// clock is a fake clock safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// key returns a deterministic Ed25519 key from one repeated byte.
func key(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

func mustSigner(t testing.TB, priv ed25519.PrivateKey) *consent.Signer {
	t.Helper()
	s, err := consent.NewSigner(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func memNonces(t testing.TB, c *clock) *consent.MemoryNonceStore {
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

// newRequest returns a consent request for send_email made at c's time.
func newRequest(t testing.TB, c *clock, params map[string]any) *consent.ConsentRequest {
	t.Helper()
	req, err := consent.NewConsentRequest(consent.Action{
		Tool: "send_email", Category: policy.CategoryCommunication, RiskLevel: policy.RiskHigh, Parameters: params,
	}, consent.Agent{ID: "agent-1"}, consent.PolicyRef{RuleID: "r1"}, c.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// respond returns a response to req signed by s at c's time, valid for a minute.
func respond(t testing.TB, s *consent.Signer, c *clock, req *consent.ConsentRequest, d consent.Decision, mods map[string]any) *consent.ConsentResponse {
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

// eventLog records events; safe for concurrent use.
type eventLog struct {
	mu     sync.Mutex
	events []consent.Event
	fail   map[consent.EventType]error
}

func (l *eventLog) record(_ context.Context, e consent.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	return l.fail[e.Type]
}

func (l *eventLog) types() []consent.EventType {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []consent.EventType
	for _, e := range l.events {
		out = append(out, e.Type)
	}
	return out
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
