package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// The Standard Webhooks headers ("Webhook headers" in the Standard
// Webhooks specification). Every signed message, in either direction,
// carries all three.
const (
	HeaderID        = "webhook-id"        // unique message id; no "." (it delimits the signed content)
	HeaderTimestamp = "webhook-timestamp" // integer Unix seconds
	HeaderSignature = "webhook-signature" // space-separated "v1,<base64 HMAC-SHA256>" entries
)

// SecretPrefix starts the text form of a secret: "whsec_" and the base64
// of the key bytes (Standard Webhooks "Secret serialization").
const SecretPrefix = "whsec_"

// Key sizes the Standard Webhooks specification allows for HMAC-SHA256
// secrets: at least 24 bytes (192 bits), at most 64 (512 bits).
const (
	MinSecretBytes = 24
	MaxSecretBytes = 64
)

// DefaultTolerance is how far a signature's timestamp may be from the
// receiver's clock, in either direction.
const DefaultTolerance = 5 * time.Minute

// Bounds on what Verify reads from headers.
const (
	maxIDLen      = 256
	maxSignatures = 16
)

// ErrSignature is wrapped by [Verify] for missing, malformed, stale or
// wrong signature headers.
var ErrSignature = errors.New("webhook: signature refused")

// ErrSecret is wrapped by [ParseSecret] for a secret that is not
// "whsec_" and the base64 of 24 to 64 bytes.
var ErrSecret = errors.New("webhook: bad secret")

// ParseSecret decodes a "whsec_<base64>" secret into its key bytes (the
// HMAC key). The prefix is required, so a raw password cannot be mistaken
// for a key; the key must be 24 to 64 bytes. Errors never quote s.
func ParseSecret(s consent.Secret) ([]byte, error) {
	b64, ok := strings.CutPrefix(string(s), SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: want %q and base64 (as `openssl rand -base64 32` prints, prefixed)", ErrSecret, SecretPrefix)
	}
	key, err := base64.StdEncoding.Strict().DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return nil, fmt.Errorf("%w: the part after %q is not standard base64", ErrSecret, SecretPrefix)
	}
	if len(key) < MinSecretBytes || len(key) > MaxSecretBytes {
		return nil, fmt.Errorf("%w: key of %d bytes, want %d to %d", ErrSecret, len(key), MinSecretBytes, MaxSecretBytes)
	}
	return key, nil
}

// NewSecret returns a fresh random secret of 32 bytes in "whsec_" form,
// for the gatehouse side and the approver to share.
func NewSecret() consent.Secret {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return consent.Secret(SecretPrefix + base64.StdEncoding.EncodeToString(key))
}

// Signature returns the "v1,<base64>" signature of a message: HMAC-SHA256
// under key (the bytes [ParseSecret] returns) of "<id>.<timestamp>.<body>"
// (Standard Webhooks "Signature scheme").
func Signature(key []byte, id string, timestamp int64, body []byte) string {
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, timestamp, body))
}

func mac(key []byte, id string, ts int64, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write(strconv.AppendInt(nil, ts, 10))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Sign sets the three Standard Webhooks headers on h for body: id, the
// Unix time of now and one signature per key, space-separated (several
// keys while a secret is rotated). id must be a valid message id (1 to
// 256 printable ASCII bytes, no "." or space).
func Sign(h http.Header, id string, body []byte, now time.Time, keys ...[]byte) error {
	if err := checkID(id); err != nil {
		return err
	}
	if len(keys) == 0 {
		return fmt.Errorf("%w: no key to sign with", ErrSecret)
	}
	ts := now.Unix()
	sigs := make([]string, len(keys))
	for i, k := range keys {
		sigs[i] = Signature(k, id, ts, body)
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
	return nil
}

// Verify checks the Standard Webhooks headers of a message with body: a
// valid id, a timestamp within tolerance of now (either way), and at least
// one "v1," signature equal, in constant time, to the HMAC under one of
// keys. Entries of other schemes ("v1a,...") are ignored; more than 16
// entries are refused. It returns the message id, for callers that keep
// ids to refuse duplicates. Errors wrap [ErrSignature] and never include
// an expected MAC.
func Verify(h http.Header, body []byte, now time.Time, tolerance time.Duration, keys ...[]byte) (string, error) {
	id := h.Get(HeaderID)
	if err := checkID(id); err != nil {
		return "", err
	}
	ts, err := parseTimestamp(h.Get(HeaderTimestamp))
	if err != nil {
		return "", err
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return "", fmt.Errorf("%w: timestamp %ds away from now, tolerance %v", ErrSignature, int64(d/time.Second), tolerance)
	}
	entries := strings.Fields(h.Get(HeaderSignature))
	if len(entries) == 0 || len(entries) > maxSignatures {
		return "", fmt.Errorf("%w: %s has %d entries, want 1 to %d", ErrSignature, HeaderSignature, len(entries), maxSignatures)
	}
	want := make([][]byte, len(keys))
	for i, k := range keys {
		want[i] = mac(k, id, ts, body)
	}
	for _, e := range entries {
		b64, ok := strings.CutPrefix(e, "v1,")
		if !ok {
			continue // another scheme, e.g. v1a (Ed25519)
		}
		got, err := base64.StdEncoding.Strict().DecodeString(b64)
		if err != nil || len(got) != sha256.Size {
			continue
		}
		for _, w := range want {
			if hmac.Equal(got, w) {
				return id, nil
			}
		}
	}
	return "", fmt.Errorf("%w: no v1 signature matches", ErrSignature)
}

// checkID enforces the message id rules: present, bounded, printable
// ASCII, and no "." (Standard Webhooks: the id must not contain the
// delimiter of the signed content).
func checkID(id string) error {
	if id == "" || len(id) > maxIDLen {
		return fmt.Errorf("%w: %s missing or longer than %d bytes", ErrSignature, HeaderID, maxIDLen)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c >= 0x7f || c == '.' {
			return fmt.Errorf("%w: %s has a byte other than printable ASCII without \".\" and space", ErrSignature, HeaderID)
		}
	}
	return nil
}

// parseTimestamp reads integer Unix seconds: decimal digits only, without
// leading zeros (the header's text is what the sender signed, and the MAC
// here is over the canonical spelling: one instant, one spelling).
func parseTimestamp(s string) (int64, error) {
	if s == "" || len(s) > 12 || strings.TrimLeft(s, "0123456789") != "" || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("%w: %s is not integer Unix seconds", ErrSignature, HeaderTimestamp)
	}
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s is not integer Unix seconds", ErrSignature, HeaderTimestamp)
	}
	return ts, nil
}

// newMessageID returns "msg_" and 128 random bits in hex.
func newMessageID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 0, 4+32)
	out = append(out, "msg_"...)
	for _, c := range b {
		out = append(out, hexdigits[c>>4], hexdigits[c&15])
	}
	return string(out)
}
