package gatehouse_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// testAS is a small OAuth 2.1 authorization server for the step-up tests:
// RFC 8414 metadata, an authorization endpoint the client's fetcher calls
// directly (no browser), PKCE S256, and a token endpoint that issues an
// opaque token for exactly the scopes requested. Its tokens are what the
// resource server's verifier accepts.
type testAS struct {
	srv *httptest.Server

	mu        sync.Mutex
	tokens    map[string][]string // access token -> scopes
	codes     map[string]pending
	requested []string // the scope parameter of every authorization request
	noUser    bool     // tokens name no user (TokenInfo.UserID empty)
}

type pending struct{ scope, challenge string }

func newTestAS(t *testing.T) *testAS {
	as := &testAS{tokens: map[string][]string{}, codes: map[string]pending{}}
	mux := http.NewServeMux()
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer":                                as.srv.URL,
			"authorization_endpoint":                as.srv.URL + "/authorize",
			"token_endpoint":                        as.srv.URL + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
		})
	})
	mux.HandleFunc("/token", as.token)
	return as
}

// issue makes a token for scopes (the tests' starting tokens).
func (as *testAS) issue(scopes ...string) string {
	tok := "at-" + rand.Text()
	as.mu.Lock()
	defer as.mu.Unlock()
	as.tokens[tok] = scopes
	return tok
}

// authorize is the user's consent, done by the client's code fetcher: it
// grants the requested scope and returns the code and state.
func (as *testAS) authorize(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(args.URL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		return nil, errors.New("test AS: PKCE S256 required")
	}
	code := rand.Text()
	as.mu.Lock()
	as.codes[code] = pending{scope: q.Get("scope"), challenge: q.Get("code_challenge")}
	as.requested = append(as.requested, q.Get("scope"))
	as.mu.Unlock()
	return &auth.AuthorizationResult{Code: code, State: q.Get("state")}, nil
}

func (as *testAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "authorization_code" {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	as.mu.Lock()
	p, ok := as.codes[r.Form.Get("code")]
	delete(as.codes, r.Form.Get("code"))
	as.mu.Unlock()
	sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
	if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != p.challenge {
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	}
	tok := as.issue(strings.Fields(p.scope)...)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600, "scope": p.scope})
}

// verify is the resource server's token verifier.
func (as *testAS) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	scopes, ok := as.tokens[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	user := "alice"
	if as.noUser {
		user = ""
	}
	return &auth.TokenInfo{UserID: user, Scopes: scopes, Expiration: time.Now().Add(time.Hour)}, nil
}

func (as *testAS) requestedScopes() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]string(nil), as.requested...)
}
