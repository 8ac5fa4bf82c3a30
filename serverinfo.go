package gatehouse

import (
	"encoding/json"
	"maps"
	"reflect"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverInfo covers the one part of a result the guard's middleware does
// not see: on the 2026-07-28 protocol go-sdk adds the server's
// Implementation (name, title, version, websiteUrl, icons) to every
// result's _meta under [mcp.MetaKeyServerInfo] after the middleware has
// returned (SEP-2575), unless the key is already there. When the
// Implementation holds a secret, the guard puts its redacted copy under
// that key first, so go-sdk leaves it alone; an Implementation without one
// costs an atomic load per request and changes nothing.
//
// The Implementation is read at Install (through the private session's
// initialize) and from every initialize result; a guard composed through
// [Guard.Middleware] learns it at the first initialize only.
//
// serverInfo is safe for concurrent use.
type serverInfo struct {
	red atomic.Pointer[mcp.Implementation] // nil: nothing to redact
}

// noteServerInfo records the redacted copy of impl when DLP redacts
// something in it. An Implementation that cannot be scanned is replaced by
// one that holds only its name's redaction marker: fail closed.
func (g *Guard) noteServerInfo(si *serverInfo, impl *mcp.Implementation) {
	if g.dlp == nil || impl == nil {
		return
	}
	raw, err := json.Marshal(impl)
	if err != nil {
		si.red.Store(&mcp.Implementation{Name: "[REDACTED]"})
		return
	}
	red, findings, err := g.dlp.RedactJSON(raw)
	if err != nil {
		si.red.Store(&mcp.Implementation{Name: "[REDACTED]"})
		return
	}
	if len(findings) == 0 {
		return
	}
	out := new(mcp.Implementation)
	if err := json.Unmarshal(red, out); err != nil {
		out = &mcp.Implementation{Name: "[REDACTED]"}
	}
	si.red.Store(out)
}

// stamp returns res with the redacted Implementation under
// [mcp.MetaKeyServerInfo] in its _meta (a new map; the handler's map is not
// written), unless the result already has that key (then it was scanned
// with the rest of the result) or has no _meta at all (go-sdk's empty
// result of ping and subscribe).
func (si *serverInfo) stamp(res mcp.Result) mcp.Result {
	red := si.red.Load()
	if red == nil || res == nil {
		return res
	}
	rv := reflect.ValueOf(res)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct || rv.Elem().NumField() == 0 {
		return res
	}
	m := res.GetMeta()
	if _, ok := m[mcp.MetaKeyServerInfo]; ok {
		return res
	}
	m = maps.Clone(m)
	if m == nil {
		m = map[string]any{}
	}
	m[mcp.MetaKeyServerInfo] = red
	res.SetMeta(m)
	return res
}
