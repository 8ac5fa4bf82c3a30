package consent_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
)

// The vector below was computed outside Go: the action, modification and
// request hashes with sha256sum over hand-written JCS text, the signature with
// `openssl pkeyutl -sign -rawin` and the Ed25519 key whose seed is 32 bytes
// of 0x01.
const (
	vectorActionHash = "sha256:60e9221790cad2aa8256598a956e98916a5e05328db14fec1a824063107bd67e" // {"subject":"hi","to":"bob@example.com"}
	vectorModsHash   = "sha256:c471ea07f7c59048ca70e21954e24bfc9e44d75ddb51932976e89eb1ff67ab2a" // {"subject":"hello"}
	// {"action":{"category":"","description":"","parameters":{"subject":"hi","to":"bob@example.com"},"risk_level":"","server":"","tool":"send_email"},"agent":{"command":"","id":"","name":""},"expires_at":"2026-01-02T03:05:05.000Z","id":"cr_test","nonce":"n_00000000-0000-4000-8000-000000000000","policy":{"required_level":"","rule_id":"","rule_name":""},"timestamp":"0001-01-01T00:00:00.000Z","type":"","version":""}
	vectorRequestHash = "sha256:f6cf2a0175bac47a9fb3a17d42a5bc8b25e1f3ee1bdc1c53a4958032f92980ef"
	vectorPayload     = `{"action_hash":"` + vectorActionHash + `","approver_channel":"","approver_id":"alice","attestation":"","decision":"approved","modifications_hash":null,"nonce":"n_00000000-0000-4000-8000-000000000000","request_hash":"` + vectorRequestHash + `","request_id":"cr_test","single_use":true,"timestamp":"2026-01-02T03:04:05.000Z","valid_until":"2026-01-02T03:05:05.000Z"}`
	vectorPayloadHash = "sha256:bd5f0633a589f859663e9fc947e3e842f11ecc81bbe0e2cd08fe0d3be6dfbd09"
	vectorSignature   = "8827818cb315970669c24f9f29e42a8b9c13426da69d24fab4b3f263bb3400483f60375d5f6486c2035da14088dabb89463d118cb0e5c89aa7e858ce5b073d00"
	vectorPublicKey   = "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
)

func vectorPair() (*consent.ConsentRequest, *consent.ConsentResponse) {
	req := &consent.ConsentRequest{
		ID:    "cr_test",
		Nonce: "n_00000000-0000-4000-8000-000000000000",
		// Key order and spelling do not matter: JCS sorts.
		Action:    consent.Action{Tool: "send_email", Parameters: map[string]any{"to": "bob@example.com", "subject": "hi"}},
		ExpiresAt: t0.Add(time.Minute),
	}
	resp := &consent.ConsentResponse{
		RequestID:   "cr_test",
		Timestamp:   t0.In(time.FixedZone("CET", 3600)), // formatted in UTC whatever the zone
		Decision:    consent.Approved,
		Approver:    consent.Approver{ID: "alice"},
		Conditions:  consent.Conditions{ValidUntil: t0.Add(time.Minute), SingleUse: true},
		Nonce:       "n_00000000-0000-4000-8000-000000000000",
		RequestHash: vectorRequestHash,
	}
	return req, resp
}

func TestSigningPayloadVector(t *testing.T) {
	req, resp := vectorPair()
	h, err := consent.ActionHash(req.Action.Parameters)
	if err != nil || h != vectorActionHash {
		t.Fatalf("ActionHash = %q, %v; want %q", h, err, vectorActionHash)
	}
	got, err := consent.SigningPayload(req, resp)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != vectorPayload {
		t.Fatalf("payload\n got %s\nwant %s", got, vectorPayload)
	}
	if err := mustSigner(t, key(1)).Sign(req, resp); err != nil {
		t.Fatal(err)
	}
	want := consent.Proof{Algorithm: "Ed25519", PublicKey: vectorPublicKey, Signature: vectorSignature, SignedPayloadHash: vectorPayloadHash}
	if resp.Proof != want {
		t.Fatalf("proof\n got %+v\nwant %+v", resp.Proof, want)
	}
	if resp.Type != "consent_response" || resp.Version != "0.2.0" {
		t.Fatalf("type/version = %q/%q", resp.Type, resp.Version)
	}
}

func TestSigningPayloadModificationsVector(t *testing.T) {
	req, resp := vectorPair()
	resp.Decision = consent.ApprovedWithModifications
	resp.Modifications = map[string]any{"subject": "hello"}
	got, err := consent.SigningPayload(req, resp)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"action_hash":"` + vectorActionHash + `","approver_channel":"","approver_id":"alice","attestation":"","decision":"approved_with_modifications","modifications_hash":"` + vectorModsHash + `","nonce":"n_00000000-0000-4000-8000-000000000000","request_hash":"` + vectorRequestHash + `","request_id":"cr_test","single_use":true,"timestamp":"2026-01-02T03:04:05.000Z","valid_until":"2026-01-02T03:05:05.000Z"}`
	if string(got) != want {
		t.Fatalf("payload\n got %s\nwant %s", got, want)
	}
}

func TestSigningPayloadRejectsInconsistentModifications(t *testing.T) {
	req, resp := vectorPair()
	resp.Modifications = map[string]any{"subject": "x"} // with plain "approved"
	if _, err := consent.SigningPayload(req, resp); !errors.Is(err, consent.ErrMalformedProof) {
		t.Fatalf("modifications with approved: %v, want ErrMalformedProof", err)
	}
	resp.Decision, resp.Modifications = consent.ApprovedWithModifications, nil
	if _, err := consent.SigningPayload(req, resp); !errors.Is(err, consent.ErrMalformedProof) {
		t.Fatalf("approved_with_modifications without any: %v, want ErrMalformedProof", err)
	}
	resp.Decision = "maybe"
	if _, err := consent.SigningPayload(req, resp); !errors.Is(err, consent.ErrMalformedProof) {
		t.Fatalf("unknown decision: %v, want ErrMalformedProof", err)
	}
}

func TestActionHashNumberSpellingAndRefusals(t *testing.T) {
	a, _ := consent.ActionHash(map[string]any{"n": json.Number("1.0"), "m": json.Number("1e2")})
	b, _ := consent.ActionHash(map[string]any{"m": 100, "n": 1})
	if a == "" || a != b {
		t.Fatalf("1.0/1e2 and 1/100 hash differently: %q %q", a, b)
	}
	empty, _ := consent.ActionHash(map[string]any{})
	null, _ := consent.ActionHash(nil)
	if empty != null {
		t.Fatal("nil and empty parameters hash differently")
	}
	for name, bad := range map[string]map[string]any{
		"invalid utf8": {"a": "\xff"},
		"invalid key":  {"\xfe": 1},
		"go type":      {"a": struct{}{}},
		"bad number":   {"a": json.Number("0x10")},
		"deep":         {"a": deep(110)},
	} {
		if _, err := consent.ActionHash(bad); !errors.Is(err, consent.ErrInvalidRequest) {
			t.Errorf("%s: %v, want ErrInvalidRequest", name, err)
		}
	}
}

func deep(n int) any {
	var v any = "x"
	for range n {
		v = []any{v}
	}
	return v
}

// verifyCase is one proof presented to Verify.
type verifyCase struct {
	name string
	// make returns the request the verifier knows, the response, and the
	// tool and arguments about to run.
	make func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any)
	want error // nil: valid
}

var params = map[string]any{"to": "bob@example.com", "amount": json.Number("10")}

func TestVerify(t *testing.T) {
	trusted, other := key(1), key(2)
	sign := func(t *testing.T, c *clock, d consent.Decision, mods map[string]any) (*consent.ConsentRequest, *consent.ConsentResponse) {
		req := newRequest(t, c, params)
		return req, respond(t, mustSigner(t, trusted), c, req, d, mods)
	}
	cases := []verifyCase{
		{"valid", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			return req, resp, "send_email", params
		}, nil},
		{"valid with modifications", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.ApprovedWithModifications, map[string]any{"amount": json.Number("5")})
			return req, resp, "send_email", map[string]any{"to": "bob@example.com", "amount": 5}
		}, nil},
		{"forged signature", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			sig, _ := hex.DecodeString(resp.Proof.Signature)
			sig[10] ^= 1
			resp.Proof.Signature = hex.EncodeToString(sig)
			return req, resp, "send_email", params
		}, consent.ErrBadSignature},
		{"decision flipped after signing", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Denied, nil)
			resp.Decision = consent.Approved
			return req, resp, "send_email", params
		}, consent.ErrBadSignature},
		{"wrong key", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req := newRequest(t, c, params)
			return req, respond(t, mustSigner(t, other), c, req, consent.Approved, nil), "send_email", params
		}, consent.ErrUntrustedKey},
		{"trusted key claimed, other key signed", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req := newRequest(t, c, params)
			resp := respond(t, mustSigner(t, other), c, req, consent.Approved, nil)
			resp.Proof.PublicKey = hex.EncodeToString(trusted.Public().(ed25519.PublicKey))
			return req, resp, "send_email", params
		}, consent.ErrBadSignature},
		{"wrong nonce", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			other := *req
			other.Nonce = newRequest(t, c, params).Nonce
			return &other, resp, "send_email", params
		}, consent.ErrRequestMismatch},
		{"signed with another nonce", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req := newRequest(t, c, params)
			resp := &consent.ConsentResponse{RequestID: req.ID, Timestamp: c.Now(), Decision: consent.Approved,
				Conditions: consent.Conditions{ValidUntil: c.Now().Add(time.Minute)}, Nonce: "n_other"}
			if err := mustSigner(t, trusted).Sign(req, resp); err != nil {
				t.Fatal(err)
			}
			return req, resp, "send_email", params
		}, consent.ErrNonceMismatch},
		{"other request", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			_, resp := sign(t, c, consent.Approved, nil)
			return newRequest(t, c, params), resp, "send_email", params
		}, consent.ErrRequestMismatch},
		{"expired", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			c.Advance(time.Minute) // valid_until is exclusive
			return req, resp, "send_email", params
		}, consent.ErrExpired},
		{"decided after the request expired", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req := newRequest(t, c, params)
			c.Advance(time.Minute + time.Millisecond)
			return req, respond(t, mustSigner(t, trusted), c, req, consent.Approved, nil), "send_email", params
		}, consent.ErrExpired},
		{"modified parameters not covered", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			return req, resp, "send_email", map[string]any{"to": "bob@example.com", "amount": json.Number("1000")}
		}, consent.ErrActionMismatch},
		{"original parameters after an approval with modifications", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.ApprovedWithModifications, map[string]any{"amount": json.Number("5")})
			return req, resp, "send_email", params
		}, consent.ErrActionMismatch},
		{"modifications changed after signing", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.ApprovedWithModifications, map[string]any{"amount": json.Number("5")})
			resp.Modifications = map[string]any{"amount": json.Number("5000")}
			return req, resp, "send_email", map[string]any{"to": "bob@example.com", "amount": 5000}
		}, consent.ErrBadSignature},
		{"request parameters changed after signing", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			changed := *req
			changed.Action.Parameters = map[string]any{"to": "eve@example.com", "amount": json.Number("10")}
			return &changed, resp, "send_email", changed.Action.Parameters
		}, consent.ErrRequestMismatch},
		{"request hash altered with the request", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			changed := *req
			changed.Action.Tool = "delete_account"
			resp.RequestHash, _ = consent.RequestHash(&changed)
			return &changed, resp, "delete_account", params
		}, consent.ErrBadSignature},
		{"other tool", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			return req, resp, "delete_account", params
		}, consent.ErrActionMismatch},
		{"authentic denial", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Denied, nil)
			return req, resp, "send_email", params
		}, consent.ErrNotApproved},
		{"wrong algorithm", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			resp.Proof.Algorithm = "none"
			return req, resp, "send_email", params
		}, consent.ErrMalformedProof},
		{"payload hash altered", func(t *testing.T, c *clock) (*consent.ConsentRequest, *consent.ConsentResponse, string, map[string]any) {
			req, resp := sign(t, c, consent.Approved, nil)
			resp.Proof.SignedPayloadHash = "sha256:00"
			return req, resp, "send_email", params
		}, consent.ErrBadSignature},
	}
	all := []error{consent.ErrMalformedProof, consent.ErrUntrustedKey, consent.ErrBadSignature, consent.ErrRequestMismatch,
		consent.ErrNonceMismatch, consent.ErrReplayed, consent.ErrExpired, consent.ErrActionMismatch, consent.ErrNotApproved}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			req, resp, tool, args := tc.make(t, c)
			v, err := consent.NewVerifier([]ed25519.PublicKey{trusted.Public().(ed25519.PublicKey)}, memNonces(t, c), &consent.VerifierOptions{Now: c.Now})
			if err != nil {
				t.Fatal(err)
			}
			err = v.Verify(context.Background(), req, resp, tool, args)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Verify = %v, want nil", err)
				}
				// Single use: the same proof again is a replay.
				if err := v.Verify(context.Background(), req, resp, tool, args); !errors.Is(err, consent.ErrReplayed) {
					t.Fatalf("second Verify = %v, want ErrReplayed", err)
				}
				return
			}
			var pe *consent.ProofError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
			for _, other := range all {
				if other != tc.want && errors.Is(err, other) {
					t.Errorf("error %v also matches %v", err, other)
				}
			}
		})
	}
}

func TestVerifyConsumesNonceOnlyWhenValid(t *testing.T) {
	c := newClock()
	s := mustSigner(t, key(1))
	v, _ := consent.NewVerifier([]ed25519.PublicKey{s.PublicKey()}, memNonces(t, c), &consent.VerifierOptions{Now: c.Now})
	req := newRequest(t, c, params)
	resp := respond(t, s, c, req, consent.Approved, nil)
	bad := map[string]any{"to": "eve@example.com"}
	if err := v.Verify(context.Background(), req, resp, "send_email", bad); !errors.Is(err, consent.ErrActionMismatch) {
		t.Fatalf("bad args: %v", err)
	}
	if err := v.Verify(context.Background(), req, resp, "send_email", params); err != nil {
		t.Fatalf("a refused attempt burnt the nonce: %v", err)
	}
}

func TestVerifyRoundTripsThroughJSON(t *testing.T) {
	c := newClock()
	s := mustSigner(t, key(1))
	req := newRequest(t, c, params)
	resp := respond(t, s, c, req, consent.ApprovedWithModifications, map[string]any{"amount": json.Number("5")})
	var req2 consent.ConsentRequest
	var resp2 consent.ConsentResponse
	roundTrip(t, req, &req2)
	roundTrip(t, resp, &resp2)
	v, _ := consent.NewVerifier([]ed25519.PublicKey{s.PublicKey()}, memNonces(t, c), &consent.VerifierOptions{Now: c.Now})
	if err := v.Verify(context.Background(), &req2, &resp2, "send_email", map[string]any{"to": "bob@example.com", "amount": 5}); err != nil {
		t.Fatalf("after a JSON round trip: %v", err)
	}
}

func roundTrip(t *testing.T, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytesReader(b))
	d.UseNumber()
	if err := d.Decode(out); err != nil {
		t.Fatal(err)
	}
}

func TestNewVerifierOptions(t *testing.T) {
	n := memNonces(t, nil)
	for name, f := range map[string]func() error{
		"no keys":   func() error { _, err := consent.NewVerifier(nil, n, nil); return err },
		"short key": func() error { _, err := consent.NewVerifier([]ed25519.PublicKey{make([]byte, 31)}, n, nil); return err },
		"no store": func() error {
			_, err := consent.NewVerifier([]ed25519.PublicKey{key(1).Public().(ed25519.PublicKey)}, nil, nil)
			return err
		},
		"signer": func() error { _, err := consent.NewSigner(ed25519.PrivateKey(make([]byte, 10))); return err },
	} {
		if err := f(); !errors.Is(err, consent.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}
