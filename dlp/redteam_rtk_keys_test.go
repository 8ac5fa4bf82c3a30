package dlp_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Red team of the pack's key envelopes (rtk): a JSON Web Key's private
// members (jose, node's crypto.exportKey("jwk"), a JWKS file of signing
// keys) were not a format the pack knew, and a PuTTY key was found only
// with real line breaks and only for its first 15 private lines: an RSA
// 4096 key has 28, and a .ppk inside a JSON string has "\n" escapes. PEM
// envelopes in other spellings (OpenSSH with CRLF, PKCS#8 ENCRYPTED, PGP
// private key blocks) held and are kept here as regressions.

// b64line returns a fake base64 line of n bytes, distinct per i.
func b64line(i, n int) string {
	const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b strings.Builder
	for j := range n {
		b.WriteByte(a[(i*7+j*13+j*j)%64])
	}
	return b.String()
}

func b64url(i, n int) string {
	return strings.NewReplacer("+", "-", "/", "_").Replace(b64line(i, n))
}

func ppk(privateLines int, eol string) (doc string, lines []string) {
	var b strings.Builder
	b.WriteString("PuTTY-User-Key-File-2: ssh-rsa" + eol + "Encryption: none" + eol + "Comment: rsa-key-20261124" + eol + "Public-Lines: 2" + eol)
	b.WriteString(b64line(1, 64) + eol + b64line(2, 40) + eol)
	b.WriteString("Private-Lines: " + strconv.Itoa(privateLines) + eol)
	for i := range privateLines {
		l := b64line(10+i, 64)
		lines = append(lines, l)
		b.WriteString(l + eol)
	}
	b.WriteString("Private-MAC: 0123456789abcdef0123456789abcdef01234567" + eol)
	return b.String(), lines
}

func TestRedTeamRTK_KeyEnvelopes(t *testing.T) {
	s := builtinScanner(t, nil)
	d, p, q := b64url(1, 43), b64url(2, 86), b64url(3, 86)
	rsa := `{"kty":"RSA","n":"` + b64url(4, 342) + `","e":"AQAB","d":"` + d + `","p":"` + p + `","q":"` + q + `","dp":"` + b64url(5, 86) + `","dq":"` + b64url(6, 86) + `","qi":"` + b64url(7, 86) + `"}`
	sorted := "{\n  \"crv\": \"Ed25519\",\n  \"d\": \"" + d + "\",\n  \"kty\": \"OKP\",\n  \"x\": \"" + b64url(8, 43) + "\"\n}"
	esc, _ := json.Marshal(map[string]string{"jwk": `{"kty":"EC","crv":"P-256","x":"` + b64url(9, 43) + `","y":"` + b64url(10, 43) + `","d":"` + d + `"}`})
	jwks := `{"keys":[{"kty":"oct","kid":"hmac-1","k":"` + d + `","alg":"HS256"}]}`
	for name, doc := range map[string]string{"rsa jwk": rsa, "sorted okp jwk": sorted, "jwk in a json string": string(esc), "jwks oct": jwks} {
		red, _ := s.Redact(doc)
		for _, v := range []string{d, p[:40], q[:40]} {
			if strings.Contains(doc, v) && strings.Contains(red, v) {
				t.Errorf("%s: a private member reached the reader:\n%s", name, red)
			}
		}
	}
	big, lines := ppk(28, "\r\n")
	esc, _ = json.Marshal(strings.ReplaceAll(big, "\r\n", "\n"))
	for name, doc := range map[string]string{"ppk rsa 4096 crlf": big, "ppk in a json string": string(esc)} {
		red, _ := s.Redact(doc)
		for i, l := range lines {
			if strings.Contains(red, l) {
				t.Errorf("%s: private line %d reached the reader", name, i+1)
			}
		}
		if !strings.Contains(red, "Comment: rsa-key-20261124") {
			t.Errorf("%s: the comment was redacted:\n%s", name, red)
		}
	}
	body := b64line(20, 64) + "\n" + b64line(21, 64) + "\n" + b64line(22, 30) + "\n"
	for name, doc := range map[string]string{
		"openssh crlf": strings.ReplaceAll("-----BEGIN OPENSSH PRIVATE KEY-----\n"+body+"-----END OPENSSH PRIVATE KEY-----\n", "\n", "\r\n"),
		"pkcs8 enc":    "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + body + "-----END ENCRYPTED PRIVATE KEY-----\n",
		"pgp":          "-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: fake\n\n" + body + "=Ab12\n-----END PGP PRIVATE KEY BLOCK-----\n",
	} {
		if red, _ := s.Redact(doc); strings.Contains(red, b64line(21, 64)) {
			t.Errorf("%s: the key reached the reader:\n%s", name, red)
		}
	}
}

// A private key without its PEM envelope (PRIVATE_KEY=MIIEvQ... in an
// environment, the body lines of a key file, an OpenSSH key's base64 in a
// secret store's JSON) reached the reader: every rule for keys looked for
// the BEGIN line.
func TestRedTeamRTK_KeyWithoutEnvelope(t *testing.T) {
	s := builtinScanner(t, nil)
	body := b64line(30, 64)
	for name, doc := range map[string]string{
		"pkcs8 env":       "PRIVATE_KEY=MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + body + "\nLOG_LEVEL=info",
		"pkcs1 lines":     "MIIEpAIBAAKCAQEA" + b64line(31, 48) + "\n" + body + "\n" + b64line(32, 40) + "==\n",
		"openssh in json": `{"ssh_key": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW` + body + `"}`,
		"sec1 p-256":      "ec_key: MHcCAQEEI" + body,
		"encrypted pkcs8": "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI" + body,
	} {
		if red, _ := s.Redact(doc); strings.Contains(red, body[:40]) {
			t.Errorf("%s: the key reached the reader:\n%s", name, red)
		}
	}
}

// Near misses: public JWKs and JWKS, objects with a "d" member that are
// no key, public keys and certificates pass unchanged.
func TestRedTeamRTK_PublicKeysUnchanged(t *testing.T) {
	s := builtinScanner(t, nil)
	for _, doc := range []string{
		`{"keys":[{"kty":"RSA","kid":"k1","use":"sig","n":"` + b64url(4, 342) + `","e":"AQAB"},{"kty":"EC","crv":"P-256","x":"` + b64url(9, 43) + `","y":"` + b64url(10, 43) + `"}]}`,
		`{"type":"path","d":"` + b64url(1, 43) + `"}`,
		"PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 2\n" + b64line(1, 64) + "\n",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64line(2, 64) + "\n-----END PUBLIC KEY-----",
		"MIIDXTCCAkWgAwIBAgIJAKL0UG+mRKSzMA0GCSqGSIb3DQEBCwUAMEUx" + b64line(3, 64),
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64line(4, 43) + " me@host",
	} {
		if red, f := s.Redact(doc); len(f) != 0 || red != doc {
			t.Errorf("%q -> %q (%v)", doc, red, names(f))
		}
	}
}
