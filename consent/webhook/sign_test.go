package webhook_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/webhook"
)

// The test vector published with the Standard Webhooks specification (its
// reference libraries test the same values).
const (
	vecSecret    = consent.Secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	vecID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vecTimestamp = 1614265330
	vecBody      = `{"test": 2432232314}`
	vecSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestStandardWebhooksVector(t *testing.T) {
	key, err := webhook.ParseSecret(vecSecret)
	if err != nil {
		t.Fatal(err)
	}
	if got := webhook.Signature(key, vecID, vecTimestamp, []byte(vecBody)); got != vecSignature {
		t.Fatalf("Signature = %s, want %s", got, vecSignature)
	}
	h := http.Header{}
	if err := webhook.Sign(h, vecID, []byte(vecBody), time.Unix(vecTimestamp, 0), key); err != nil {
		t.Fatal(err)
	}
	if h.Get("webhook-id") != vecID || h.Get("webhook-timestamp") != "1614265330" || h.Get("webhook-signature") != vecSignature {
		t.Fatalf("headers %v", h)
	}
	now := time.Unix(vecTimestamp+30, 0)
	if id, err := webhook.Verify(h, []byte(vecBody), now, time.Minute, key); err != nil || id != vecID {
		t.Fatalf("Verify = %q, %v", id, err)
	}
}

func vecHeader(sig string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", vecID)
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", sig)
	return h
}

// TestVerifyRotation: several signatures, space-separated, and several
// keys; any match counts, other schemes are skipped.
func TestVerifyRotation(t *testing.T) {
	key, _ := webhook.ParseSecret(vecSecret)
	now := time.Unix(vecTimestamp, 0)
	body := []byte(vecBody)
	for name, sig := range map[string]string{
		"new first":       vecSignature + " v1,bm9wZQ==",
		"new second":      "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= " + vecSignature,
		"asymmetric also": "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg== " + vecSignature,
		"extra spaces":    "  " + vecSignature + "   ",
	} {
		if _, err := webhook.Verify(vecHeader(sig), body, now, time.Minute, key); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The receiver holds the old and the new key: a message signed with
	// either verifies.
	if _, err := webhook.Verify(vecHeader(vecSignature), body, now, time.Minute, otherKey, key); err != nil {
		t.Errorf("old key second: %v", err)
	}
	// The sender signs with both: a receiver with only one verifies.
	h := http.Header{}
	webhook.Sign(h, "msg_1", body, now, otherKey, key)
	if n := len(strings.Fields(h.Get("webhook-signature"))); n != 2 {
		t.Fatalf("%d signatures, want 2", n)
	}
	for _, k := range [][]byte{key, otherKey} {
		if _, err := webhook.Verify(h, body, now, time.Minute, k); err != nil {
			t.Errorf("one of two keys: %v", err)
		}
	}
}

func TestVerifyRefuses(t *testing.T) {
	key, _ := webhook.ParseSecret(vecSecret)
	now := time.Unix(vecTimestamp, 0)
	set := func(k, v string) http.Header { h := vecHeader(vecSignature); h.Set(k, v); return h }
	del := func(k string) http.Header { h := vecHeader(vecSignature); h.Del(k); return h }
	sig := strings.TrimPrefix(vecSignature, "v1,")
	cases := map[string]struct {
		h    http.Header
		body string
		now  time.Time
		key  []byte
	}{
		"other body":          {vecHeader(vecSignature), `{"test": 2432232315}`, now, key},
		"body with space":     {vecHeader(vecSignature), vecBody + " ", now, key},
		"other key":           {vecHeader(vecSignature), vecBody, now, otherKey},
		"stale":               {vecHeader(vecSignature), vecBody, now.Add(6 * time.Minute), key},
		"future":              {vecHeader(vecSignature), vecBody, now.Add(-6 * time.Minute), key},
		"moved timestamp":     {set("webhook-timestamp", "1614265331"), vecBody, now, key},
		"other id":            {set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJeK"), vecBody, now, key},
		"no id":               {del("webhook-id"), vecBody, now, key},
		"no timestamp":        {del("webhook-timestamp"), vecBody, now, key},
		"no signature":        {del("webhook-signature"), vecBody, now, key},
		"signed timestamp +":  {set("webhook-timestamp", "+1614265330"), vecBody, now, key},
		"float timestamp":     {set("webhook-timestamp", "1614265330.0"), vecBody, now, key},
		"leading zero":        {set("webhook-timestamp", "01614265330"), vecBody, now, key},
		"id with a dot":       {set("webhook-id", "msg.1"), vecBody, now, key},
		"id with a space":     {set("webhook-id", "msg 1"), vecBody, now, key},
		"id too long":         {set("webhook-id", strings.Repeat("m", 257)), vecBody, now, key},
		"only v1a":            {set("webhook-signature", "v1a,"+sig), vecBody, now, key},
		"v2 scheme":           {set("webhook-signature", "v2,"+sig), vecBody, now, key},
		"no scheme":           {set("webhook-signature", sig), vecBody, now, key},
		"hex not base64":      {set("webhook-signature", "v1,83484cf52b04f8e4d3246d2dfb6e8a2ad2ca653e6ee142545958d0e2c9d4e2d4"), vecBody, now, key},
		"truncated mac":       {set("webhook-signature", vecSignature[:len(vecSignature)-8]+"===="), vecBody, now, key},
		"too many signatures": {set("webhook-signature", strings.Repeat("v1,bm9wZQ== ", 16)+vecSignature), vecBody, now, key},
		"comma separated":     {set("webhook-signature", "v1,bm9wZQ==,"+vecSignature), vecBody, now, key},
		"no key":              {vecHeader(vecSignature), vecBody, now, nil},
	}
	for name, c := range cases {
		keys := [][]byte{c.key}
		if c.key == nil {
			keys = nil
		}
		if _, err := webhook.Verify(c.h, []byte(c.body), c.now, 5*time.Minute, keys...); !errors.Is(err, webhook.ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
}

func TestParseSecret(t *testing.T) {
	if k, err := webhook.ParseSecret(vecSecret); err != nil || len(k) != 24 {
		t.Fatalf("vector secret: %d bytes, %v", len(k), err)
	}
	if k, err := webhook.ParseSecret(webhook.NewSecret()); err != nil || len(k) != 32 {
		t.Fatalf("NewSecret: %d bytes, %v", len(k), err)
	}
	if webhook.NewSecret() == webhook.NewSecret() {
		t.Fatal("NewSecret repeats")
	}
	for name, s := range map[string]string{
		"no prefix":   "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"wrong case":  "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"not base64":  "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS!",
		"url base64":  "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa-_",
		"23 bytes":    "whsec_" + strings.Repeat("A", 28) + "AAA=",
		"65 bytes":    "whsec_" + strings.Repeat("A", 84) + "AAA=",
		"empty":       "whsec_",
		"raw secret":  strings.Repeat("s", 40),
		"bad padding": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw=",
	} {
		_, err := webhook.ParseSecret(consent.Secret(s))
		if !errors.Is(err, webhook.ErrSecret) {
			t.Errorf("%s: %v, want ErrSecret", name, err)
		} else if len(s) > 8 && strings.Contains(err.Error(), s[6:]) {
			t.Errorf("%s: error quotes the secret: %v", name, err)
		}
	}
	if err := webhook.Sign(http.Header{}, "msg.1", nil, time.Now(), []byte("k")); !errors.Is(err, webhook.ErrSignature) {
		t.Errorf("Sign with a dotted id: %v", err)
	}
}
