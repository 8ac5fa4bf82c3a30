package approval

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
)

var errMalformedAssertion = errors.New("approval: the assertion is not a well-formed PublicKeyCredential JSON object")

// parseAssertion is protocol.ParseCredentialRequestResponseBytes with a
// faster and stricter JSON step: it decodes the PublicKeyCredential JSON
// into go-webauthn's CredentialAssertionResponse itself (one pass, exact
// member names) and hands it to go-webauthn's CredentialAssertionResponse.Parse,
// which does all the WebAuthn checks as before.
//
// Whatever it accepts, encoding/json decodes to the same value
// (FuzzAssertionDecoding checks this against go-webauthn's own parse). It
// refuses what encoding/json would resolve silently: a member given twice
// (encoding/json keeps the last) and a member name that matches a known one
// only when case is ignored ("RawID", "ſignature").
func parseAssertion(raw []byte) (*protocol.ParsedCredentialAssertionData, error) {
	var car protocol.CredentialAssertionResponse
	if !decodeAssertion(raw, &car) {
		return nil, errMalformedAssertion
	}
	return car.Parse()
}

// Members of the assertion JSON, in the PublicKeyCredential object and in its
// response object.
var (
	credentialMembers = []string{"id", "type", "rawId", "authenticatorAttachment", "clientExtensionResults", "response"}
	responseMembers   = []string{"clientDataJSON", "authenticatorData", "signature", "userHandle"}
)

func decodeAssertion(raw []byte, car *protocol.CredentialAssertionResponse) bool {
	return decodeMembers(raw, credentialMembers, func(i int, val []byte) bool {
		switch i {
		case 0:
			return decodeString(val, &car.ID)
		case 1:
			return decodeString(val, &car.Type)
		case 2:
			return decodeBase64(val, &car.RawID)
		case 3:
			return decodeString(val, &car.AuthenticatorAttachment)
		case 4:
			return json.Unmarshal(val, &car.ClientExtensionResults) == nil
		}
		if val[0] != '{' {
			return json.Unmarshal(val, &car.AssertionResponse) == nil
		}
		r := &car.AssertionResponse
		return decodeMembers(val, responseMembers, func(i int, val []byte) bool {
			return decodeBase64(val, [...]*protocol.URLEncodedBase64{&r.ClientDataJSON, &r.AuthenticatorData, &r.Signature, &r.UserHandle}[i])
		})
	})
}

// decodeMembers splits the JSON object raw and calls field once for each
// member named in names (fewer than 64), with its index; other members must
// be valid JSON. A repeated member, and a member whose name matches one of
// names only when case is folded, refuse the object.
func decodeMembers(raw []byte, names []string, field func(i int, val []byte) bool) bool {
	var seen uint64
	return splitObject(raw, func(key string, val []byte) bool {
		i := memberIndex(names, key)
		switch {
		case i == -2:
			return false
		case i == -1:
			return json.Valid(val)
		case seen&(1<<i) != 0:
			return false
		}
		seen |= 1 << i
		return field(i, val)
	})
}

// memberIndex returns the index of key in names, -1 for an unknown member,
// and -2 for a name that equals a known one only when case is folded (as
// encoding/json would match it).
func memberIndex(names []string, key string) int {
	for i, n := range names {
		if key == n {
			return i
		}
	}
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return -2
		}
	}
	return -1
}

// decodeString decodes the JSON value val into s as encoding/json does; a
// plain printable-ASCII string without escapes is taken as is.
func decodeString(val []byte, s *string) bool {
	if plainString(val, printableASCII) {
		*s = string(val[1 : len(val)-1])
		return true
	}
	return json.Unmarshal(val, s) == nil
}

// decodeBase64 decodes the JSON value val into b as
// protocol.URLEncodedBase64.UnmarshalJSON does (padding trimmed, URL
// alphabet, null leaves b alone); a string of base64url characters only is
// decoded without the JSON round trip.
func decodeBase64(val []byte, b *protocol.URLEncodedBase64) bool {
	if !plainString(val, base64URLChar) {
		return json.Unmarshal(val, b) == nil
	}
	out, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(string(val[1:len(val)-1]), "="))
	if err != nil {
		return false
	}
	*b = out
	return true
}

// plainString reports whether val is a JSON string whose every character
// satisfies ok, which must exclude '"', '\\' and control characters, so the
// text between the quotes is the string's value.
func plainString(val []byte, ok func(byte) bool) bool {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return false
	}
	for _, c := range val[1 : len(val)-1] {
		if !ok(c) {
			return false
		}
	}
	return true
}

func printableASCII(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }

func base64URLChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '='
}
