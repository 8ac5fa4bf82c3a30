// Package consenttest holds conformance kits for implementations of the
// consent package's interfaces: [TestChannel] for a [consent.Channel] and
// [TestNonceStore] for a [consent.NonceStore].
//
// Usage, in a channel's tests:
//
//	func TestMyChannel(t *testing.T) {
//		consenttest.TestChannel(t, func(t *testing.T) (consent.Channel, consenttest.Human) {
//			return newChannelAndFakeHuman(t)
//		})
//	}
package consenttest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/policy"
)

// Human plays the human side of a channel under test. Its methods are
// called from several goroutines at once.
type Human interface {
	// Shown waits until the channel has shown req to the human and returns
	// the text shown (or sent).
	Shown(ctx context.Context, req *consent.ConsentRequest) (string, error)
	// Decide answers req with d (consent.Approved or consent.Denied), the
	// way a real approver would.
	Decide(ctx context.Context, req *consent.ConsentRequest, d consent.Decision) error
	// Forge sends an approval of req that the channel must not accept: an
	// unauthenticated, misdirected or garbled answer.
	Forge(ctx context.Context, req *consent.ConsentRequest) error
	// Break makes the channel's transport fail from now on (server down,
	// terminal gone).
	Break()
}

// Setup returns a fresh channel and its human for one subtest.
type Setup func(t *testing.T) (consent.Channel, Human)

// wait bounds every step of the kit.
const wait = 10 * time.Second

// TestChannel checks the [consent.Channel] contract: the human sees the
// tool, risk and parameters; approvals and denials arrive as such; a
// timeout, a cancelled context or a broken transport is an error (deny);
// forged answers are ignored; concurrent requests get their own answers.
func TestChannel(t *testing.T, setup Setup) {
	t.Helper()
	t.Run("Approve", func(t *testing.T) {
		ch, h := setup(t)
		req := request(t, "send_email", map[string]any{"to": "bob@example.com", "amount": json.Number("42")})
		res := ask(context.Background(), ch, req)
		text := shown(t, h, req)
		for _, want := range []string{"send_email", "high", "bob@example.com", "42"} {
			if !strings.Contains(text, want) {
				t.Errorf("the human was not shown %q; shown:\n%s", want, text)
			}
		}
		decide(t, h, req, consent.Approved)
		r := res.get(t)
		if r.err != nil || r.reply.Decision != consent.Approved {
			t.Fatalf("Ask = %+v, %v; want approved", r.reply, r.err)
		}
		if ch.Name() == "" {
			t.Error("empty Name")
		}
	})
	t.Run("Deny", func(t *testing.T) {
		ch, h := setup(t)
		req := request(t, "delete_file", map[string]any{"path": "/tmp/x"})
		res := ask(context.Background(), ch, req)
		shown(t, h, req)
		decide(t, h, req, consent.Denied)
		if r := res.get(t); r.err != nil || r.reply.Decision != consent.Denied {
			t.Fatalf("Ask = %+v, %v; want denied", r.reply, r.err)
		}
	})
	t.Run("TimeoutDenies", func(t *testing.T) {
		ch, h := setup(t)
		req := request(t, "send_email", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		res := ask(ctx, ch, req)
		shown(t, h, req)
		r := res.get(t)
		if r.err == nil || !errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("Ask after the deadline = %+v, %v; want an error wrapping context.DeadlineExceeded", r.reply, r.err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("Ask returned %v after a 300ms deadline", d)
		}
	})
	t.Run("CancelDenies", func(t *testing.T) {
		ch, h := setup(t)
		req := request(t, "send_email", nil)
		ctx, cancel := context.WithCancel(context.Background())
		res := ask(ctx, ch, req)
		shown(t, h, req)
		cancel()
		if r := res.get(t); !errors.Is(r.err, context.Canceled) {
			t.Fatalf("Ask after cancel = %+v, %v; want context.Canceled", r.reply, r.err)
		}
	})
	t.Run("ChannelFailureDenies", func(t *testing.T) {
		ch, h := setup(t)
		h.Break()
		req := request(t, "send_email", nil)
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		r := ask(ctx, ch, req).get(t)
		if r.err == nil {
			t.Fatalf("Ask on a broken channel = %+v, nil; want an error", r.reply)
		}
		if errors.Is(r.err, context.DeadlineExceeded) {
			t.Fatalf("Ask on a broken channel waited for the deadline instead of failing: %v", r.err)
		}
	})
	t.Run("ForgedAnswerIgnored", func(t *testing.T) {
		ch, h := setup(t)
		req := request(t, "transfer_funds", map[string]any{"amount": json.Number("1000000")})
		res := ask(context.Background(), ch, req)
		shown(t, h, req)
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := h.Forge(ctx, req); err != nil {
			t.Fatalf("Forge: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // let a wrongly accepted forgery win the race
		decide(t, h, req, consent.Denied)
		if r := res.get(t); r.err != nil || r.reply.Decision != consent.Denied {
			t.Fatalf("Ask = %+v, %v; want the genuine denial, not the forged approval", r.reply, r.err)
		}
	})
	t.Run("ConcurrentRequests", func(t *testing.T) {
		ch, h := setup(t)
		reqs := []*consent.ConsentRequest{request(t, "send_email", nil), request(t, "delete_file", nil), request(t, "pay_invoice", nil)}
		want := []consent.Decision{consent.Approved, consent.Denied, consent.Approved}
		results := make([]*result, len(reqs))
		for i, req := range reqs {
			results[i] = ask(context.Background(), ch, req)
		}
		var wg sync.WaitGroup
		for i, req := range reqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				shown(t, h, req)
				decide(t, h, req, want[i])
			}()
		}
		wg.Wait()
		for i := range reqs {
			if r := results[i].get(t); r.err != nil || r.reply.Decision != want[i] {
				t.Errorf("request %d: Ask = %+v, %v; want %s", i, r.reply, r.err, want[i])
			}
		}
	})
}

func request(t *testing.T, tool string, params map[string]any) *consent.ConsentRequest {
	t.Helper()
	req, err := consent.NewConsentRequest(consent.Action{
		Tool: tool, Category: policy.Classify(tool).Category, RiskLevel: policy.Classify(tool).Risk,
		Parameters: params, Description: "conformance test",
	}, consent.Agent{ID: "agent-test", Name: "test agent"}, consent.PolicyRef{RuleID: "rule-1"}, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

type outcome struct {
	reply consent.Reply
	err   error
}

type result struct{ c chan outcome }

func ask(ctx context.Context, ch consent.Channel, req *consent.ConsentRequest) *result {
	r := &result{c: make(chan outcome, 1)}
	go func() {
		rep, err := ch.Ask(ctx, req)
		r.c <- outcome{rep, err}
	}()
	return r
}

func (r *result) get(t *testing.T) outcome {
	t.Helper()
	select {
	case o := <-r.c:
		return o
	case <-time.After(wait):
		t.Fatalf("Ask did not return within %v", wait)
		return outcome{}
	}
}

func shown(t *testing.T, h Human, req *consent.ConsentRequest) string {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	text, err := h.Shown(ctx, req)
	if err != nil {
		t.Errorf("the request was not shown to the human: %v", err)
	}
	return text
}

func decide(t *testing.T, h Human, req *consent.ConsentRequest, d consent.Decision) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := h.Decide(ctx, req, d); err != nil {
		t.Errorf("Decide: %v", err)
	}
}
