package webhook_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/consenttest"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
)

var (
	hookSecret  = consent.Secret("whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("s", 32))))
	hookKey     = mustKey(hookSecret)
	otherSecret = webhook.NewSecret()
	otherKey    = mustKey(otherSecret)
)

func mustKey(s consent.Secret) []byte {
	k, err := webhook.ParseSecret(s)
	if err != nil {
		panic(err)
	}
	return k
}

var msgSeq atomic.Int64

// signed returns Standard Webhooks headers for body under key at ts.
func signed(key []byte, body []byte, ts time.Time) http.Header {
	h := http.Header{}
	if err := webhook.Sign(h, fmt.Sprintf("msg_test%d", msgSeq.Add(1)), body, ts, key); err != nil {
		panic(err)
	}
	return h
}

// approver is a fake webhook receiver: it checks each request's signature
// and answers synchronously (sync) or with 202 and a later callback.
type approver struct {
	t        *testing.T
	sync     bool
	srv      *httptest.Server // receives requests
	callback *httptest.Server // the Webhook's handler
	// respond, when set, replaces the normal sync answer.
	respond func(rw http.ResponseWriter, req *consent.ConsentRequest)

	mu       sync.Mutex
	received map[string]*consent.ConsentRequest
	bodies   map[string]string
	arrived  chan struct{}
	answers  map[string]chan consent.Decision
}

func newApprover(t *testing.T, syncMode bool) (*webhook.Channel, *approver) {
	t.Helper()
	a := &approver{t: t, sync: syncMode, received: map[string]*consent.ConsentRequest{}, bodies: map[string]string{},
		arrived: make(chan struct{}), answers: map[string]chan consent.Decision{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	w, err := webhook.New(&webhook.Options{URL: a.srv.URL + "/hook?token=sekrit", Secret: hookSecret})
	if err != nil {
		t.Fatal(err)
	}
	a.callback = httptest.NewServer(w)
	t.Cleanup(a.callback.Close)
	return w, a
}

func (a *approver) answerChan(id string) chan consent.Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answers[id] == nil {
		a.answers[id] = make(chan consent.Decision, 1)
	}
	return a.answers[id]
}

func (a *approver) serve(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if _, err := webhook.Verify(r.Header, body, time.Now(), time.Minute, hookKey); err != nil {
		a.t.Errorf("approver got a request with a bad signature: %v", err)
		http.Error(rw, "bad signature", http.StatusUnauthorized)
		return
	}
	var req consent.ConsentRequest
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&req); err != nil || req.Type != "consent_request" {
		a.t.Errorf("approver got a bad body: %v", err)
		return
	}
	a.mu.Lock()
	a.received[req.ID], a.bodies[req.ID] = &req, string(body)
	close(a.arrived)
	a.arrived = make(chan struct{})
	a.mu.Unlock()
	if a.respond != nil {
		a.respond(rw, &req)
		return
	}
	if !a.sync {
		rw.WriteHeader(http.StatusAccepted)
		return
	}
	select {
	case dec := <-a.answerChan(req.ID):
		b, _ := json.Marshal(webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: dec, Approver: "carol"})
		copyHeader(rw.Header(), signed(hookKey, b, time.Now()))
		_, _ = rw.Write(b)
	case <-r.Context().Done():
	}
}

func (a *approver) Shown(ctx context.Context, req *consent.ConsentRequest) (string, error) {
	for {
		a.mu.Lock()
		body, ok := a.bodies[req.ID]
		ch := a.arrived
		a.mu.Unlock()
		if ok {
			return body, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

func copyHeader(dst, src http.Header) {
	for k, v := range src {
		dst[k] = v
	}
}

// post sends a callback signed with key at ts.
func (a *approver) post(ctx context.Context, key []byte, ts time.Time, r webhook.Reply) (int, error) {
	b, _ := json.Marshal(r)
	return a.postRaw(ctx, signed(key, b, ts), b)
}

func (a *approver) postRaw(ctx context.Context, h http.Header, b []byte) (int, error) {
	hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.callback.URL, bytes.NewReader(b))
	copyHeader(hreq.Header, h)
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (a *approver) Decide(ctx context.Context, req *consent.ConsentRequest, d consent.Decision) error {
	if a.sync {
		a.answerChan(req.ID) <- d
		return nil
	}
	code, err := a.post(ctx, hookKey, time.Now(), webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: d, Approver: "carol"})
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("callback answered %d", code)
	}
	return err
}

// Forge sends approvals the Webhook must refuse: wrong secret, stale
// timestamp, wrong nonce, and a signed consent request replayed as a decision.
func (a *approver) Forge(ctx context.Context, req *consent.ConsentRequest) error {
	ok := webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Approved, Approver: "mallory"}
	wrongNonce := ok
	wrongNonce.Nonce = "n_forged"
	for name, try := range map[string]func() (int, error){
		"wrong secret": func() (int, error) { return a.post(ctx, otherKey, time.Now(), ok) },
		"stale":        func() (int, error) { return a.post(ctx, hookKey, time.Now().Add(-time.Hour), ok) },
		"wrong nonce":  func() (int, error) { return a.post(ctx, hookKey, time.Now(), wrongNonce) },
		"reflected request": func() (int, error) {
			a.mu.Lock()
			body := []byte(a.bodies[req.ID])
			a.mu.Unlock()
			return a.postRaw(ctx, signed(hookKey, body, time.Now()), body)
		},
	} {
		code, err := try()
		if err != nil {
			return err
		}
		if code == http.StatusOK {
			return fmt.Errorf("forged callback (%s) was accepted", name)
		}
	}
	return nil
}

func (a *approver) Break() { a.srv.Close() }

func TestWebhookChannel(t *testing.T) {
	for _, mode := range []struct {
		name string
		sync bool
	}{{"Callback", false}, {"Response", true}} {
		t.Run(mode.name, func(t *testing.T) {
			consenttest.TestChannel(t, func(t *testing.T) (consent.Channel, consenttest.Human) {
				return newApprover(t, mode.sync)
			})
		})
	}
}

func TestWebhookCallbackReplayRejected(t *testing.T) {
	w, a := newApprover(t, false)
	req := newRequest(t, newClock(), nil)
	// Timestamps are checked against the real clock: make the request now.
	req.Timestamp = time.Now()
	done := make(chan error, 1)
	go func() { _, err := w.Ask(context.Background(), req); done <- err }()
	ctx := context.Background()
	if _, err := a.Shown(ctx, req); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Denied, Approver: "carol"})
	sig := signed(hookKey, body, time.Now())
	if code, err := a.postRaw(ctx, sig, body); err != nil || code != http.StatusOK {
		t.Fatalf("genuine callback: %d, %v", code, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if code, _ := a.postRaw(ctx, sig, body); code != http.StatusNotFound {
		t.Fatalf("replayed callback: %d, want 404", code)
	}
}

func TestWebhookRefusesBadReplies(t *testing.T) {
	other := newRequest(t, newClock(), nil)
	answer := func(rw http.ResponseWriter, r webhook.Reply, key []byte) {
		b, _ := json.Marshal(r)
		copyHeader(rw.Header(), signed(key, b, time.Now()))
		_, _ = rw.Write(b)
	}
	cases := map[string]func(rw http.ResponseWriter, req *consent.ConsentRequest){
		"unsigned": func(rw http.ResponseWriter, req *consent.ConsentRequest) {
			_ = json.NewEncoder(rw).Encode(webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Approved})
		},
		"wrong secret": func(rw http.ResponseWriter, req *consent.ConsentRequest) {
			answer(rw, webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Approved}, otherKey)
		},
		"other request": func(rw http.ResponseWriter, _ *consent.ConsentRequest) {
			answer(rw, webhook.Reply{RequestID: other.ID, Nonce: other.Nonce, Decision: consent.Approved}, hookKey)
		},
		"wrong nonce": func(rw http.ResponseWriter, req *consent.ConsentRequest) {
			answer(rw, webhook.Reply{RequestID: req.ID, Nonce: other.Nonce, Decision: consent.Approved}, hookKey)
		},
		"unknown decision": func(rw http.ResponseWriter, req *consent.ConsentRequest) {
			answer(rw, webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: "yes"}, hookKey)
		},
		"server error": func(rw http.ResponseWriter, _ *consent.ConsentRequest) {
			rw.WriteHeader(http.StatusInternalServerError)
		},
		"redirect": func(rw http.ResponseWriter, _ *consent.ConsentRequest) {
			rw.WriteHeader(http.StatusFound)
		},
	}
	for name, respond := range cases {
		t.Run(name, func(t *testing.T) {
			w, a := newApprover(t, true)
			a.respond = respond
			rep, err := w.Ask(context.Background(), newRequest(t, newClock(), nil))
			if !errors.Is(err, consent.ErrChannel) || rep.Decision == consent.Approved {
				t.Fatalf("Ask = %+v, %v; want ErrChannel", rep, err)
			}
			if strings.Contains(err.Error(), "sekrit") || strings.Contains(err.Error(), string(hookSecret)) {
				t.Fatalf("error leaks a secret: %v", err)
			}
		})
	}
}

func TestWebhookUnreachableErrorHidesURL(t *testing.T) {
	w, a := newApprover(t, true)
	a.Break()
	_, err := w.Ask(context.Background(), newRequest(t, newClock(), nil))
	if !errors.Is(err, consent.ErrChannel) || strings.Contains(err.Error(), "sekrit") {
		t.Fatalf("Ask = %v; want ErrChannel without the URL's token", err)
	}
}

func TestNewWebhookOptions(t *testing.T) {
	for name, o := range map[string]*webhook.Options{
		"nil":          nil,
		"no url":       {Secret: hookSecret},
		"relative url": {URL: "/hook", Secret: hookSecret},
		"ftp":          {URL: "ftp://x/hook", Secret: hookSecret},
		"short secret": {URL: "https://x/hook", Secret: "short"},
		"raw secret":   {URL: "https://x/hook", Secret: consent.Secret(strings.Repeat("s", 32))},
		"23 bytes":     {URL: "https://x/hook", Secret: consent.Secret("whsec_" + base64.StdEncoding.EncodeToString(make([]byte, 23)))},
		"bad previous": {URL: "https://x/hook", Secret: hookSecret, PreviousSecrets: []consent.Secret{"whsec_!!"}},
		"negative":     {URL: "https://x/hook", Secret: hookSecret, MaxPending: -1},
	} {
		if _, err := webhook.New(o); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}

// TestWebhookSecretRotation: with Secret (new) and PreviousSecrets (old),
// the channel signs each request with both, so an approver still on the
// old secret verifies it, and accepts a decision signed with either; a
// third secret is refused.
func TestWebhookSecretRotation(t *testing.T) {
	newSecret, oldSecret := webhook.NewSecret(), hookSecret
	newKey := mustKey(newSecret)
	answer := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if n := len(strings.Fields(r.Header.Get(webhook.HeaderSignature))); n != 2 {
			t.Errorf("%d signatures on the request, want 2", n)
		}
		for _, k := range [][]byte{hookKey, newKey} {
			if _, err := webhook.Verify(r.Header, body, time.Now(), time.Minute, k); err != nil {
				t.Errorf("an approver with one of the secrets refuses the request: %v", err)
			}
		}
		var req consent.ConsentRequest
		json.Unmarshal(body, &req)
		b, _ := json.Marshal(webhook.Reply{RequestID: req.ID, Nonce: req.Nonce, Decision: consent.Approved, Approver: "carol"})
		copyHeader(rw.Header(), signed(<-answer, b, time.Now()))
		rw.Write(b)
	}))
	defer srv.Close()
	w, err := webhook.New(&webhook.Options{URL: srv.URL, Secret: newSecret, PreviousSecrets: []consent.Secret{oldSecret}})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		key []byte
		ok  bool
	}{"new": {newKey, true}, "old": {hookKey, true}, "unknown": {otherKey, false}} {
		answer <- c.key
		rep, err := w.Ask(context.Background(), newRequest(t, newClock(), nil))
		if c.ok != (err == nil && rep.Decision == consent.Approved) {
			t.Errorf("%s: %+v %v", name, rep, err)
		}
	}
}
