package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Limits of a -tokens file.
const (
	minTokenLen = 32 // characters: 128 bits of hex at least
	maxTokenLen = 512
	maxTokens   = 4096
)

// userName is what a -tokens user may be called: short names that read
// well in logs and in the enrollment lines on stderr. (The enrollment page
// enrolls for approval.NewUser(gatehouse.ApprovalUserID(name)), the identity the guard gives
// MCP requests of that token, whatever the name.)
var userName = regexp.MustCompile(`^[A-Za-z0-9._@-]{1,64}$`)

// tokens maps bearer tokens to users. It is immutable once built, so safe
// for concurrent use.
type tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	sum  [sha256.Size]byte // of the token: equal lengths for the constant-time compare
	user string
}

// loadTokens reads a -tokens file: one "token user" pair per line; blank
// lines and lines starting with # are ignored. Errors name the line and
// never quote a token.
func loadTokens(path string) (*tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseTokens(path, f)
}

func parseTokens(name string, r io.Reader) (*tokens, error) {
	ts := &tokens{}
	seen := map[[sha256.Size]byte]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 4096)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		bad := func(msg string) error { return fmt.Errorf("%s:%d: %s", name, line, msg) }
		fields := strings.Fields(text)
		switch {
		case len(fields) != 2:
			return nil, bad(`want "token user" (two fields separated by spaces)`)
		case len(fields[0]) < minTokenLen || len(fields[0]) > maxTokenLen:
			return nil, bad(fmt.Sprintf("the token must be %d to %d characters (use e.g. openssl rand -hex 32)", minTokenLen, maxTokenLen))
		case !userName.MatchString(fields[1]):
			return nil, bad("the user must be 1-64 characters of A-Z a-z 0-9 . _ @ -")
		case len(ts.entries) == maxTokens:
			return nil, bad(fmt.Sprintf("more than %d tokens", maxTokens))
		}
		e := tokenEntry{sum: sha256.Sum256([]byte(fields[0])), user: fields[1]}
		if seen[e.sum] {
			return nil, bad("this token is listed already")
		}
		seen[e.sum] = true
		ts.entries = append(ts.entries, e)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: line longer than 4096 bytes", name, line+1)
	} else if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(ts.entries) == 0 {
		return nil, fmt.Errorf("%s: no tokens", name)
	}
	return ts, nil
}

// randomToken returns tokens holding one new 256-bit token for user, and
// the token.
func randomToken(user string) (*tokens, string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, "", err
	}
	tok := hex.EncodeToString(raw[:])
	return &tokens{entries: []tokenEntry{{sum: sha256.Sum256([]byte(tok)), user: user}}}, tok, nil
}

// users returns the distinct users, in file order.
func (ts *tokens) users() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range ts.entries {
		if !seen[e.user] {
			seen[e.user] = true
			out = append(out, e.user)
		}
	}
	return out
}

// verify is the auth.TokenVerifier: it compares the token with every
// entry in constant time, so the time taken says nothing about how close
// a guess was or which entry matched.
func (ts *tokens) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	sum := sha256.Sum256([]byte(token))
	match := -1
	for i := range ts.entries {
		if subtle.ConstantTimeCompare(sum[:], ts.entries[i].sum[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: ts.entries[match].user}, nil
}

// bearerChallenge is the WWW-Authenticate header of a 401 (RFC 6750 §3;
// RFC 9110 §11.6.1 requires one on every 401).
const bearerChallenge = `Bearer realm="stdio-server"`

// requireToken puts bearer-token authentication in front of h: requests
// without a valid token get 401 with WWW-Authenticate: Bearer and never
// reach h. go-sdk's middleware sets that header only with resource
// metadata, so it is set before and removed once a token passed (h writes
// the response; the ResponseWriter is not wrapped, so streaming keeps
// working).
func (ts *tokens) requireToken(h http.Handler) http.Handler {
	passed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Del("WWW-Authenticate")
		h.ServeHTTP(w, r)
	})
	// Static tokens carry no expiry; they live as long as the file says.
	authed := auth.RequireBearerToken(ts.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(passed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", bearerChallenge)
		authed.ServeHTTP(w, r)
	})
}
