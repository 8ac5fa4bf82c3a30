package gatehouse

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/normalize"
	"github.com/gatehouse-dev/gatehouse/policy"
	"github.com/gatehouse-dev/gatehouse/scope"
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
// so that a tools/call of protocol 2026-07-28 whose bearer token lacks a
// scope the call needs is answered, before go-sdk reads it, with HTTP 403
// and the MCP authorization step-up challenge:
//
//	WWW-Authenticate: Bearer error="insufficient_scope", scope="<every scope the call needs>", resource_metadata="<ScopeOptions.ResourceMetadataURL>"
//
// and a JSON-RPC error body of the same shape as the scope stage's. Put it
// inside go-sdk's auth.RequireBearerToken, which supplies the token:
//
//	auth.RequireBearerToken(verify, opts)(guard.ScopeChallenges(mcp.NewStreamableHTTPHandler(...)))
//
// It reads the body (at most ScopeOptions.MaxBodyBytes) to learn the
// arguments and gives it back to next unchanged. Requests of older
// protocol versions, requests whose Mcp-Method or Mcp-Name header does not
// match the body, batches and bodies over the bound pass through: the
// scope stage refuses those calls with a JSON-RPC error (the boundary is
// the stage; this wrapper only adds the HTTP challenge). Without
// Options.Scopes it returns next. go-sdk v1.8 serves protocol 2026-07-28
// only on a stateless handler (StreamableHTTPOptions.Stateless); its
// clients talk older versions to a stateful one and get the JSON-RPC
// denial.
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
		if whole && g.challenge(w, r, body) {
			return
		}
		next.ServeHTTP(w, r)
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

// toolsCall is the part of a JSON-RPC request the challenge reads.
type toolsCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ClientInfo *mcp.Implementation `json:"io.modelcontextprotocol/clientInfo"`
		} `json:"_meta"`
	} `json:"params"`
}

// challenge answers a scope shortfall with 403 and reports whether it did.
func (g *Guard) challenge(w http.ResponseWriter, r *http.Request, body []byte) bool {
	var m toolsCall
	if json.Unmarshal(body, &m) != nil || m.Method != policy.MethodToolsCall || m.Params == nil || len(m.ID) == 0 ||
		m.Params.Name != r.Header.Get(headerName) {
		return false
	}
	var granted []string
	ti := auth.TokenInfoFromContext(r.Context())
	if ti != nil {
		granted = ti.Scopes
	}
	d, err := g.o.Scopes.Policy.Check(m.Params.Name, m.Params.Arguments, granted)
	if err != nil || d.Allowed {
		return false // bad arguments: the decode stage answers -32602
	}
	tool := normalizeTool(m.Params.Name)
	dec := scopeDecision(policy.MethodToolsCall, tool, d)
	ctx := withScopeAudit(r.Context(), d.Required, granted)
	agent := httpAgent(ti, m.Params.Meta.ClientInfo, g.o.DefaultAgent)
	if err := g.auditDecision(ctx, g.namedRaw(m.Params.Name, dec), agent, m.Params.Arguments); err != nil {
		g.log.Error("gatehouse: audit write failed", "method", dec.Method, "error", err)
	}
	g.recordTrust(ctx, agent, dec, true)
	w.Header().Set("WWW-Authenticate", g.wwwAuthenticate(d))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", m.ID, g.scopeError(dec, m.Params.Name, d)})
	w.Write(resp)
	return true
}

// httpAgent is the identity the scope stage would give the call (see
// identity): the token's user, else the client's per-request name
// (protocol 2026-07-28), else the default.
func httpAgent(ti *auth.TokenInfo, ci *mcp.Implementation, def string) string {
	if ti != nil && ti.UserID != "" {
		return "user:" + bound(ti.UserID)
	}
	if ci != nil {
		if n := normalize.Name(ci.Name); n != "" {
			return "client:" + bound(n)
		}
	}
	return def
}

// wwwAuthenticate is the RFC 6750 §3 challenge of MCP authorization's
// step-up flow. Scopes are RFC 6749 scope-tokens (no '"' or '\') and the
// URL was checked by New, so quoting is plain.
func (g *Guard) wwwAuthenticate(d scope.Decision) string {
	var b strings.Builder
	b.WriteString(`Bearer error="insufficient_scope", scope="`)
	b.WriteString(strings.Join(d.Required, " "))
	b.WriteByte('"')
	if u := g.o.Scopes.ResourceMetadataURL; u != "" {
		b.WriteString(`, resource_metadata="`)
		b.WriteString(u)
		b.WriteByte('"')
	}
	return b.String()
}

// namedRaw is named for a call that has no pipeline call yet.
func (g *Guard) namedRaw(rawTool string, d policy.Decision) policy.Decision {
	return g.named(&call{rawTool: rawTool}, d)
}
