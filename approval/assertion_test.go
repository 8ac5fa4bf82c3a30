package approval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-webauthn/webauthn/protocol"

	"github.com/gatehouse-dev/gatehouse/approval"
)

// genuineAssertion returns one assertion as the software authenticator
// (and a browser) sends it.
func genuineAssertion(t testing.TB) string {
	f := newFixture(t, nil)
	f.enroll()
	return string(f.assertion(f.challenge(testTool, testArgs)))
}

// sameAsGoWebAuthn checks the differential property of parseAssertion: what
// it accepts, go-webauthn's own ParseCredentialRequestResponseBytes parses
// to the same value.
func sameAsGoWebAuthn(t *testing.T, raw []byte) (accepted bool) {
	t.Helper()
	got, err := approval.ParseAssertion(raw)
	if err != nil {
		return false
	}
	want, werr := protocol.ParseCredentialRequestResponseBytes(raw)
	if werr != nil {
		t.Fatalf("accepted what go-webauthn refuses (%v): %q", werr, raw)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed differently from go-webauthn:\n got %+v\nwant %+v\ninput %q", got, want, raw)
	}
	return true
}

func TestParseAssertionMatchesGoWebAuthn(t *testing.T) {
	g := genuineAssertion(t)
	var m map[string]any
	if err := json.Unmarshal([]byte(g), &m); err != nil {
		t.Fatal(err)
	}
	resp := m["response"].(map[string]any)
	sig := resp["signature"].(string)
	escaped := strings.Replace(g, `"type":"public-key"`, `"type":"public\u002dkey"`, 1)
	for name, in := range map[string]string{
		"genuine":               g,
		"indented":              indent(t, g),
		"escaped string":        escaped,
		"escaped base64":        strings.Replace(g, `"signature":"`+sig[:1], `"signature":"\u00`+hexByte(sig[0]), 1),
		"padded base64":         strings.Replace(g, `"signature":"`+sig+`"`, `"signature":"`+sig+`=="`, 1),
		"unknown member":        strings.Replace(g, `{"authenticatorAttachment"`, `{"x":[1,{"y":null}],"authenticatorAttachment"`, 1),
		"null userHandle":       strings.Replace(g, `"userHandle":"`+resp["userHandle"].(string)+`"`, `"userHandle":null`, 1),
		"no extension results":  strings.Replace(g, `,"clientExtensionResults":{}`, ``, 1),
		"non-ASCII unknown key": strings.Replace(g, `{"authenticatorAttachment"`, `{"é":1,"authenticatorAttachment"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			if in == g && name != "genuine" {
				t.Fatalf("the edit did not apply to %s", g)
			}
			if !sameAsGoWebAuthn(t, []byte(in)) {
				_, err := approval.ParseAssertion([]byte(in))
				t.Fatalf("refused a valid assertion: %v\n%s", err, in)
			}
		})
	}
}

func indent(t *testing.T, s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s), " ", "\t"); err != nil {
		t.Fatal(err)
	}
	return "\r\n" + b.String() + "\n "
}

func hexByte(c byte) string {
	const d = "0123456789abcdef"
	return string([]byte{d[c>>4], d[c&15]})
}

// The strict decode refuses what encoding/json would resolve silently, and
// everything malformed.
func TestParseAssertionRefuses(t *testing.T) {
	g := genuineAssertion(t)
	for name, in := range map[string]string{
		"duplicate id":             strings.Replace(g, `"id":`, `"id":"AAAA","id":`, 1),
		"duplicate signature":      strings.Replace(g, `"signature":`, `"signature":"AAAA","signature":`, 1),
		"case-variant member":      strings.Replace(g, `"rawId":`, `"RAWID":`, 1),
		"folded member":            strings.Replace(g, `"signature":`, `"ſignature":`, 1),
		"case-variant added":       strings.Replace(g, `{"authenticatorAttachment"`, `{"Response":{},"authenticatorAttachment"`, 1),
		"trailing data":            g + `{}`,
		"trailing comma":           strings.Replace(g, `"type":"public-key"`, `"type":"public-key",`, 1),
		"bad base64":               strings.Replace(g, `"signature":"`, `"signature":"*`, 1),
		"number for string":        strings.Replace(g, `"type":"public-key"`, `"type":5`, 1),
		"invalid unknown value":    strings.Replace(g, `{"authenticatorAttachment"`, `{"x":[1,],"authenticatorAttachment"`, 1),
		"control char in string":   strings.Replace(g, `"type":"public-key"`, "\"type\":\"public-key\x01\"", 1),
		"response not an object":   strings.Replace(g, `"response":{`, `"response":["x"],"y":{`, 1),
		"array":                    "[" + g + "]",
		"null":                     "null",
		"empty":                    "",
		"unterminated":             g[:len(g)-1],
		"wrong type":               strings.Replace(g, `"type":"public-key"`, `"type":"password"`, 1),
		"id and rawId disagree":    strings.Replace(g, `"id":"`, `"id":"AA`, 1),
		"missing authData":         strings.Replace(g, `"authenticatorData"`, `"authenticatorDatum"`, 1),
		"ext output of wrong type": strings.Replace(g, `"clientExtensionResults":{}`, `"clientExtensionResults":{"appid":"yes"}`, 1),
		"invalid key escape":       strings.Replace(g, `{"authenticatorAttachment"`, `{"\x":1,"authenticatorAttachment"`, 1),
		"control char in key":      strings.Replace(g, `{"authenticatorAttachment"`, "{\"a\x02\":1,\"authenticatorAttachment\"", 1),
		"unquoted key":             strings.Replace(g, `{"authenticatorAttachment"`, `{a:1,"authenticatorAttachment"`, 1),
		"response hidden in other": strings.Replace(g, `"response":{`, `"response":{"z":1,"z":`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			if in == g {
				t.Fatal("the edit did not apply")
			}
			if _, err := approval.ParseAssertion([]byte(in)); err == nil {
				t.Fatalf("accepted %s", in)
			}
		})
	}
}

// FuzzAssertionDecoding: whatever parseAssertion accepts, go-webauthn's own
// parse accepts too and yields the same value; nothing panics.
func FuzzAssertionDecoding(f *testing.F) {
	g := genuineAssertion(f)
	f.Add([]byte(g))
	f.Add([]byte(`{"id":"AA","rawId":"AA","type":"public-key","response":null}`))
	f.Add([]byte(`{"id":"AA","rawId":"AA=","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":null,"signature":"","userHandle":"\u0041A"}}`))
	f.Add([]byte(`{"id":"AA","rawId":"AA","type":"public-key","clientExtensionResults":{"appid":true,"x":null}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsGoWebAuthn(t, raw)
	})
}

// truncatingStore returns stored challenges with their bytes cut short, as
// a damaged or tampered store might.
type truncatingStore struct {
	approval.ChallengeStore
	keep int
}

func (s truncatingStore) Get(ctx context.Context, id string, now time.Time) (*approval.Challenge, error) {
	c, err := s.ChallengeStore.Get(ctx, id, now)
	if err == nil && c.Kind == approval.KindApproval {
		c.Bytes = c.Bytes[:s.keep]
	}
	return c, err
}

// A challenge store returning challenge bytes of the wrong length denies
// (unknown challenge, ErrUnavailable) and never panics or verifies.
func TestVerifyDamagedChallengeDenies(t *testing.T) {
	for _, keep := range []int{0, 16, 31, 32, 63} {
		mem, err := approval.NewMemoryChallengeStore(nil)
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t, &fixtureOpts{challenges: truncatingStore{mem, keep}})
		f.enroll()
		_, err = f.verify(testTool, testArgs, f.evidence(f.challenge(testTool, testArgs)))
		wantReason(t, err, approval.ReasonChallengeUnknown)
		if !errors.Is(err, approval.ErrUnavailable) {
			t.Errorf("keep %d: %v does not wrap ErrUnavailable", keep, err)
		}
	}
}
