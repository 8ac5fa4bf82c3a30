package gatehouse

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

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
