package consent

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries the HMAC of webhook requests, responses and
// callbacks: "t=<unix seconds>,v1=<hex HMAC-SHA256>".
const SignatureHeader = "Gatehouse-Signature"

// WebhookKind says which way a signed webhook body travels; it is part of
// the signed string, so a body signed one way never verifies the other.
type WebhookKind string

// The two kinds of signed webhook bodies.
const (
	WebhookRequest  WebhookKind = "request"  // gatehouse -> approver: a ConsentRequest
	WebhookDecision WebhookKind = "decision" // approver -> gatehouse: a WebhookReply
)

// DefaultWebhookTolerance is how far a signature's timestamp may be from
// the receiver's clock.
const DefaultWebhookTolerance = 5 * time.Minute

// ErrWebhookSignature is wrapped by [VerifyWebhook] for a missing, malformed,
// stale or wrong signature.
var ErrWebhookSignature = errors.New("consent: webhook signature refused")

// WebhookReply is the body of an approver's decision, in the response to
// the webhook POST or in a callback. RequestID and Nonce must be the
// request's; Modifications only with approved_with_modifications.
type WebhookReply struct {
	RequestID     string         `json:"request_id"`
	Nonce         string         `json:"nonce"`
	Decision      Decision       `json:"decision"`
	Approver      string         `json:"approver"`
	Modifications map[string]any `json:"modifications,omitempty"`
}

func webhookMAC(secret Secret, kind WebhookKind, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("gatehouse-webhook-v1." + string(kind) + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return m.Sum(nil)
}

// SignWebhook returns the [SignatureHeader] value for body sent at now:
// HMAC-SHA256 under secret of "gatehouse-webhook-v1.<kind>.<unix>.<body>".
// Approvers use it to sign their decisions.
func SignWebhook(secret Secret, kind WebhookKind, body []byte, now time.Time) string {
	ts := now.Unix()
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(webhookMAC(secret, kind, ts, body))
}

// VerifyWebhook checks a [SignatureHeader] value for body: well formed, a
// timestamp within tolerance of now, and an HMAC equal (in constant time)
// to the one secret gives. Approvers use it on the requests they receive.
// Errors wrap [ErrWebhookSignature] and never include the expected MAC.
func VerifyWebhook(secret Secret, kind WebhookKind, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts int64
	var mac []byte
	var haveT, haveV bool
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || haveT {
				return fmt.Errorf("%w: bad timestamp", ErrWebhookSignature)
			}
			ts, haveT = n, true
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size || haveV {
				return fmt.Errorf("%w: bad v1 MAC", ErrWebhookSignature)
			}
			mac, haveV = b, true
		}
	}
	if !haveT || !haveV {
		return fmt.Errorf("%w: header needs t= and v1=", ErrWebhookSignature)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp %ds away from now, tolerance %v", ErrWebhookSignature, int64(d/time.Second), tolerance)
	}
	if !hmac.Equal(mac, webhookMAC(secret, kind, ts, body)) {
		return fmt.Errorf("%w: MAC does not match", ErrWebhookSignature)
	}
	return nil
}
