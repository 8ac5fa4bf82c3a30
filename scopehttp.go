package gatehouse

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/policy"
)

// Streamable-HTTP headers of protocol 2026-07-28 (SEP-2243), as go-sdk
// v1.8 sends and checks them against the body.
const (
	headerProtocol = "Mcp-Protocol-Version"
	headerMethod   = "Mcp-Method"
	headerName     = "Mcp-Name"
	headerVersion  = "2026-07-28"
)

// ScopeChallenges wraps a streamable-HTTP handler (mcp.NewStreamableHTTPHandler)
// so that a tools/call of protocol 2026-07-28 that the scope stage refuses
// for a scope its bearer token lacks is answered with HTTP 403 and the MCP
// authorization step-up challenge:
//
//	WWW-Authenticate: Bearer error="insufficient_scope", scope="<every scope the call needs>", resource_metadata="<ScopeOptions.ResourceMetadataURL>"
//
// and the stage's JSON-RPC error as the body. Put it inside go-sdk's
// auth.RequireBearerToken, which supplies the token:
//
//	auth.RequireBearerToken(verify, opts)(guard.ScopeChallenges(mcp.NewStreamableHTTPHandler(...)))
//
// The stage decides, and the wrapper only turns its refusal into the
// status: the request goes through go-sdk and the guard as any other, and
// when the stage refuses the call for its scopes (with the input schema's
// defaults applied, after an approved change of the arguments) the
// response go-sdk starts is replaced by the challenge. A call the policy
// refuses anyway, or whose tool the session does not list, gets that
// refusal and no challenge (see ScopeOptions). The wrapper reads the body
// (at most ScopeOptions.MaxBodyBytes) for the request's id and gives it
// back to next unchanged. Requests of older protocol versions, requests
// whose Mcp-Method or Mcp-Name header does not match the body, batches and
// bodies over the bound pass through untouched: the stage refuses those
// calls with a JSON-RPC error. Without Options.Scopes it returns next.
// go-sdk v1.8 serves protocol 2026-07-28 only on a stateless handler
// (StreamableHTTPOptions.Stateless), where the guard sees the HTTP
// request's context; its clients talk older versions to a stateful one
// and get the JSON-RPC denial.
func (g *Guard) ScopeChallenges(next http.Handler) http.Handler {
	if g.o.Scopes == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(headerMethod) != policy.MethodToolsCall || !newProtocolHeader(r.Header.Get(headerProtocol)) {
			next.ServeHTTP(w, r)
			return
		}
		body, whole := readBounded(r, g.o.Scopes.MaxBodyBytes)
		id, ok := callID(body, r.Header.Get(headerName))
		if !whole || !ok {
			next.ServeHTTP(w, r)
			return
		}
		slot := &challengeSlot{header: r.Header}
		cw := &challengeWriter{w: w, g: g, slot: slot, id: id}
		next.ServeHTTP(cw, r.WithContext(context.WithValue(r.Context(), challengeKey{}, slot)))
		cw.finish()
	})
}

// newProtocolHeader: a protocol version go-sdk supports that has the
// standard headers (an unsupported one is refused by go-sdk).
func newProtocolHeader(v string) bool {
	return v >= headerVersion && slices.Contains(mcp.SupportedProtocolVersions(), v)
}

// readBounded reads up to max bytes of r's body and puts back a body that
// yields every byte of the original. whole is false when the body is
// longer than max or could not be read.
func readBounded(r *http.Request, max int64) (body []byte, whole bool) {
	orig := r.Body
	if orig == nil {
		return nil, true
	}
	buf, err := io.ReadAll(io.LimitReader(orig, max+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), orig), orig}
	return buf, err == nil && int64(len(buf)) <= max
}

// callID is the id of the single tools/call in body for the tool named
// by the Mcp-Name header, as go-sdk reads it (jsonrpc.DecodeMessage: an
// id of 1e0, 7.0 or "\u0041" is answered as 1, 7 or "A"), so the
// challenge answers the id go-sdk's own response would carry; ok is false
// for anything else (a batch, a notification, a mismatched name), which
// go-sdk answers or refuses.
func callID(body []byte, name string) (json.RawMessage, bool) {
	msg, err := jsonrpc.DecodeMessage(body)
	req, isReq := msg.(*jsonrpc.Request)
	if err != nil || !isReq || req.Method != policy.MethodToolsCall || !req.ID.IsValid() {
		return nil, false
	}
	// The exact member "name", as go-sdk dispatches it: a struct field
	// would also take "Name" or "NAME" (encoding/json matches field names
	// case-insensitively), and the last of them.
	var p map[string]json.RawMessage
	var got string
	if json.Unmarshal(req.Params, &p) != nil || json.Unmarshal(p["name"], &got) != nil || got != name {
		return nil, false
	}
	id, err := json.Marshal(req.ID.Raw())
	if err != nil {
		return nil, false
	}
	return id, true
}

type challengeKey struct{}

// challengeSlot carries the scope stage's denial of the HTTP request's
// tools/call to ScopeChallenges.
type challengeSlot struct {
	header   http.Header // the request's header map: go-sdk's RequestExtra.Header of its call
	mu       sync.Mutex
	required []string // nil: no scope denial
	err      error    // the stage's JSON-RPC error
}

// owns reports whether req came with the HTTP request the slot was made
// for: go-sdk hands a call the request's own header map (RequestExtra.
// Header), so only that call may fill the slot, never one whose handler
// context merely carries it (a session made by one request that serves
// the next).
func (s *challengeSlot) owns(req mcp.Request) bool {
	if req == nil {
		return false
	}
	ex := req.GetExtra()
	return ex != nil && ex.Header != nil && s.header != nil &&
		reflect.ValueOf(ex.Header).UnsafePointer() == reflect.ValueOf(s.header).UnsafePointer()
}

func (s *challengeSlot) set(required []string, err error) {
	s.mu.Lock()
	s.required, s.err = required, err
	s.mu.Unlock()
}

func (s *challengeSlot) get() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.required, s.err
}

// challengeWriter passes go-sdk's response on, unless the scope stage has
// denied the call by the time the response starts: then it writes the
// challenge and drops what go-sdk writes.
type challengeWriter struct {
	w    http.ResponseWriter
	g    *Guard
	slot *challengeSlot
	id   json.RawMessage
	mu   sync.Mutex
	// state: 0 nothing written yet, 1 go-sdk's response, 2 the challenge.
	state uint8
}

func (cw *challengeWriter) Header() http.Header { return cw.w.Header() }

// start decides at the response's first status or byte whose it is, and
// reports whether it is the challenge. cw.mu is held.
func (cw *challengeWriter) start() bool {
	if cw.state == 0 {
		cw.state = 1
		if required, err := cw.slot.get(); required != nil {
			cw.state = 2
			cw.g.writeChallenge(cw.w, cw.id, required, err)
		}
	}
	return cw.state == 2
}

func (cw *challengeWriter) WriteHeader(code int) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if !cw.start() {
		cw.w.WriteHeader(code)
	}
}

func (cw *challengeWriter) Write(p []byte) (int, error) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if cw.start() {
		return len(p), nil
	}
	return cw.w.Write(p)
}

// Flush flushes go-sdk's response; before it has started there is nothing
// to flush, and flushing would send a status.
func (cw *challengeWriter) Flush() {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if f, ok := cw.w.(http.Flusher); ok && cw.state != 0 {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (cw *challengeWriter) Unwrap() http.ResponseWriter { return cw.w }

// finish answers a denial to which go-sdk wrote nothing.
func (cw *challengeWriter) finish() {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	cw.start()
}

// writeChallenge writes the 403 step-up challenge with the stage's error.
func (g *Guard) writeChallenge(w http.ResponseWriter, id json.RawMessage, required []string, jerr error) {
	h := w.Header()
	h.Del("Connection")
	h.Set("WWW-Authenticate", g.wwwAuthenticate(required))
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, jerr})
	w.Write(resp)
}

// wwwAuthenticate is the RFC 6750 §3 challenge of MCP authorization's
// step-up flow. Scopes are RFC 6749 scope-tokens (no '"' or '\') and the
// URL was checked by New, so quoting is plain.
func (g *Guard) wwwAuthenticate(required []string) string {
	var b strings.Builder
	b.WriteString(`Bearer error="insufficient_scope", scope="`)
	b.WriteString(strings.Join(required, " "))
	b.WriteByte('"')
	if u := g.o.Scopes.ResourceMetadataURL; u != "" {
		b.WriteString(`, resource_metadata="`)
		b.WriteString(u)
		b.WriteByte('"')
	}
	return b.String()
}
