package gatehouse

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// maxAgentLen bounds an agent identity: it becomes part of limiter and
// budget keys, and the client chooses part of it.
const maxAgentLen = 128

// hashedPrefix starts an identity that bound replaced by its hash.
const hashedPrefix = "sha256:"

// identity returns the agent identity of a request: "user:<id>" from the
// bearer token's user (HTTP auth) when present, else "client:<name>" from
// the client's info (per request on protocol 2026-07-28, from initialize
// before), else the default.
//
// Only the token identity is authenticated. A client name is what the
// client says it is: good for attribution and per-client limits between
// cooperating clients, not a security boundary. Names are normalized and
// bounded, so look-alike spellings share one key.
func identity(req mcp.Request, def string) string {
	if req == nil {
		return def
	}
	if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil && ex.TokenInfo.UserID != "" {
		// Exact: two authenticated users never share an identity, so no
		// folding; long or unprintable ids are hashed, never cut.
		return "user:" + bound(ex.TokenInfo.UserID)
	}
	if ci := clientInfo(req); ci != nil {
		if n := normalize.Name(ci.Name); n != "" {
			return "client:" + bound(n)
		}
	}
	return def
}

// clientInfo is the client's self-declared info for req: per request on
// protocol 2026-07-28 (params._meta), else from the session's initialize.
func clientInfo(req mcp.Request) *mcp.Implementation {
	if r, ok := req.(interface{ ClientInfo() *mcp.Implementation }); ok {
		// Only where go-sdk would read _meta: a request to a client (the
		// middleware added to an mcp.Client) names no client.
		if ci, ok := metaClientInfo(req); ok {
			return ci
		}
		return r.ClientInfo()
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil {
			return ip.ClientInfo
		}
	}
	return nil
}

// bound keeps an identity short and printable: printable ASCII up to
// maxAgentLen bytes as is, anything else as "sha256:" and 32 hex digits of
// its hash (collision-resistant, unlike truncation). An id that itself
// starts with "sha256:" is hashed too, so that no user can choose an id
// that reads as the hashed form of another's: the mapping is one-to-one.
func bound(s string) string {
	if len(s) <= maxAgentLen && printableASCII(s) && !strings.HasPrefix(s, hashedPrefix) {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return hashedPrefix + hex.EncodeToString(sum[:16])
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// implStrings are the string fields of mcp.Implementation by JSON name.
var implStrings = map[string]bool{"name": true, "title": true, "description": true, "version": true, "websiteUrl": true}

// metaClientInfo reads the client info of params._meta as go-sdk's
// ServerRequest.ClientInfo does, without its cost: go-sdk re-encodes the
// generic JSON value and decodes it into mcp.Implementation (about 8 µs
// and 33 KB a request, every request of protocol 2026-07-28). ok is false
// wherever that decoding could go otherwise than a plain read: a value
// that is not a JSON object of the string fields in valid UTF-8 (plus
// scalar members the type does not have, which go-sdk's case-sensitive
// decoding ignores), icons, an absent entry (go-sdk then falls back to
// initialize): the caller asks go-sdk then.
func metaClientInfo(req mcp.Request) (*mcp.Implementation, bool) {
	p := req.GetParams()
	if p == nil {
		return nil, false
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, false // GetMeta of a nil params pointer would panic
	}
	m := p.GetMeta()
	if m == nil {
		return nil, false
	}
	v, ok := m[mcp.MetaKeyClientInfo].(map[string]any)
	if !ok {
		return nil, false
	}
	var ci mcp.Implementation
	for k, x := range v {
		if !implStrings[k] {
			if k == "icons" || !plainScalar(x) {
				return nil, false
			}
			continue
		}
		s, ok := x.(string)
		if !ok || !utf8.ValidString(s) {
			return nil, false // go-sdk's re-encoding turns bad UTF-8 into U+FFFD
		}
		switch k {
		case "name":
			ci.Name = s
		case "title":
			ci.Title = s
		case "description":
			ci.Description = s
		case "version":
			ci.Version = s
		case "websiteUrl":
			ci.WebsiteURL = s
		}
	}
	return &ci, true
}

// plainScalar reports whether x, a member mcp.Implementation does not
// have, is a JSON scalar as the wire decodes it: go-sdk's re-encoding
// keeps it and its decoding ignores it. Anything else (composites, which
// may nest past go-sdk's depth limit; NaN, infinities, funcs and other
// values an in-process caller may put in _meta, which fail go-sdk's
// re-encoding and so send it to initialize's info) is left to go-sdk.
func plainScalar(x any) bool {
	switch x := x.(type) {
	case nil, string, bool:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return false
}
