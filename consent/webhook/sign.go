package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// SignatureHeader carries the HMAC of webhook requests, responses and
// callbacks: "t=<unix seconds>,v1=<hex HMAC-SHA256>".
const SignatureHeader = "Gatehouse-Signature"

// Kind says which way a signed webhook body travels; it is part of
// the signed string, so a body signed one way never verifies the other.
type Kind string

// The two kinds of signed webhook bodies.
const (
	KindRequest  Kind = "request"  // gatehouse -> approver: a ConsentRequest
	KindDecision Kind = "decision" // approver -> gatehouse: a Reply
)

// DefaultTolerance is how far a signature's timestamp may be from
// the receiver's clock.
const DefaultTolerance = 5 * time.Minute

// ErrSignature is wrapped by [Verify] for a missing, malformed,
// stale or wrong signature.
var ErrSignature = errors.New("webhook: signature refused")

// Reply is the body of an approver's decision, in the response to
// the webhook POST or in a callback. RequestID and Nonce must be the
// request's; Modifications only with approved_with_modifications.
type Reply struct {
	RequestID     string           `json:"request_id"`
	Nonce         string           `json:"nonce"`
	Decision      consent.Decision `json:"decision"`
	Approver      string           `json:"approver"`
	Modifications map[string]any   `json:"modifications,omitempty"`
}

func webhookMAC(secret consent.Secret, kind Kind, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("gatehouse-webhook-v1." + string(kind) + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return m.Sum(nil)
}

// Sign returns the [SignatureHeader] value for body sent at now:
// HMAC-SHA256 under secret of "gatehouse-webhook-v1.<kind>.<unix>.<body>".
// Approvers use it to sign their decisions.
func Sign(secret consent.Secret, kind Kind, body []byte, now time.Time) string {
	ts := now.Unix()
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(webhookMAC(secret, kind, ts, body))
}

// Verify checks a [SignatureHeader] value for body: well formed, a
// timestamp within tolerance of now, and an HMAC equal (in constant time)
// to the one secret gives. Approvers use it on the requests they receive.
// Errors wrap [ErrSignature] and never include the expected MAC.
func Verify(secret consent.Secret, kind Kind, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts int64
	var mac []byte
	var haveT, haveV bool
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || haveT {
				return fmt.Errorf("%w: bad timestamp", ErrSignature)
			}
			ts, haveT = n, true
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size || haveV {
				return fmt.Errorf("%w: bad v1 MAC", ErrSignature)
			}
			mac, haveV = b, true
		}
	}
	if !haveT || !haveV {
		return fmt.Errorf("%w: header needs t= and v1=", ErrSignature)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp %ds away from now, tolerance %v", ErrSignature, int64(d/time.Second), tolerance)
	}
	if !hmac.Equal(mac, webhookMAC(secret, kind, ts, body)) {
		return fmt.Errorf("%w: MAC does not match", ErrSignature)
	}
	return nil
}
