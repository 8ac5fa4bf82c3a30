package webhook_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
)

// Red team of issue 18's Standard Webhooks channel: every attack here
// held; they stay as near misses.

// TestRedTeam21_ReflectedRequestIsNoReply: an approver endpoint (or a
// proxy in front of it) that echoes the channel's own signed request, as
// the synchronous reply or POSTed to the callback handler, carries a
// valid signature under the shared secret; it is still no decision.
func TestRedTeam21_ReflectedRequestIsNoReply(t *testing.T) {
	var cb *httptest.Server
	echo := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		// The callback handler too: the request's own headers and body.
		creq, _ := http.NewRequest(http.MethodPost, cb.URL, bytes.NewReader(body))
		for _, k := range []string{webhook.HeaderID, webhook.HeaderTimestamp, webhook.HeaderSignature} {
			creq.Header.Set(k, r.Header.Get(k))
			rw.Header().Set(k, r.Header.Get(k))
		}
		if resp, err := http.DefaultClient.Do(creq); err == nil {
			if resp.StatusCode == http.StatusOK {
				t.Errorf("the callback handler took the reflected request as a decision")
			}
			resp.Body.Close()
		}
		rw.Write(body)
	}))
	defer echo.Close()
	w, err := webhook.New(&webhook.Options{URL: echo.URL, Secret: hookSecret})
	if err != nil {
		t.Fatal(err)
	}
	cb = httptest.NewServer(w)
	defer cb.Close()
	req := newRequest(t, newClock(), map[string]any{"request_id": "x", "decision": "approved"})
	rep, err := w.Ask(context.Background(), req)
	if !errors.Is(err, consent.ErrChannel) || rep.Decision == consent.Approved {
		t.Fatalf("reflected request: %+v, %v; want ErrChannel", rep, err)
	}
}

// TestRedTeam21_VerifySpellings: header spellings around the genuine
// signature that must not verify (the vector's), and the ones that must.
func TestRedTeam21_VerifySpellings(t *testing.T) {
	key, _ := webhook.ParseSecret(vecSecret)
	now := time.Unix(vecTimestamp, 0)
	sig := strings.TrimPrefix(vecSignature, "v1,")
	raw, _ := base64.StdEncoding.DecodeString(sig)
	set := func(k, v string) http.Header { h := vecHeader(vecSignature); h.Set(k, v); return h }
	refused := map[string]http.Header{
		"unpadded base64":        set("webhook-signature", "v1,"+strings.TrimRight(sig, "=")),
		"url-safe base64":        set("webhook-signature", "v1,"+base64.URLEncoding.EncodeToString(raw)),
		"space after the comma":  set("webhook-signature", "v1, "+sig),
		"upper-case scheme":      set("webhook-signature", "V1,"+sig),
		"v1a with the hmac":      set("webhook-signature", "v1a,"+sig),
		"timestamp with a space": set("webhook-timestamp", " 1614265330"),
		"timestamp in ms":        set("webhook-timestamp", "1614265330000"),
		"negative timestamp":     set("webhook-timestamp", "-1614265330"),
		"timestamp 12 nines":     set("webhook-timestamp", "999999999999"),
		"timestamp 0":            set("webhook-timestamp", "0"),
		"timestamp hex":          set("webhook-timestamp", "0x6037b7f2"),
		"unicode digits":         set("webhook-timestamp", "١٦١٤٢٦٥٣٣٠"),
		"id with a trailing dot": set("webhook-id", vecID+"."),
		"id with a tab":          set("webhook-id", vecID+"\t"),
		"id with non-ASCII":      set("webhook-id", vecID+"é"),
		"id moved into the body": set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330"),
		"empty signature header": set("webhook-signature", ""),
		"only spaces":            set("webhook-signature", "   "),
		"v1, with nothing":       set("webhook-signature", "v1,"),
		"mac with extra bytes":   set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(append(raw, 0))),
		"good mac in a 2nd header": func() http.Header {
			h := set("webhook-signature", "v1,bm9wZQ==")
			h.Add("webhook-signature", vecSignature)
			return h
		}(),
	}
	for name, h := range refused {
		if _, err := webhook.Verify(h, []byte(vecBody), now, 5*time.Minute, key); !errors.Is(err, webhook.ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
	// The id/timestamp delimiter cannot be moved: the dot is refused in the
	// id, and the timestamp is digits only, so "<id>.<ts>.<body>" has one
	// parse. Near misses that verify: tabs and runs of spaces between
	// entries, another scheme next to it, the edge of the tolerance.
	for name, c := range map[string]struct {
		h   http.Header
		now time.Time
	}{
		"tab separated":      {set("webhook-signature", "v1a,abc\t"+vecSignature), now},
		"surrounding spaces": {set("webhook-signature", "  "+vecSignature+"  "), now},
		"at the tolerance":   {vecHeader(vecSignature), now.Add(5 * time.Minute)},
		"at minus tolerance": {vecHeader(vecSignature), now.Add(-5 * time.Minute)},
		"second of 16 good":  {set("webhook-signature", "v1,bm9wZQ== "+vecSignature), now},
	} {
		if _, err := webhook.Verify(c.h, []byte(vecBody), c.now, 5*time.Minute, key); err != nil {
			t.Errorf("near miss %s: %v", name, err)
		}
	}
}
