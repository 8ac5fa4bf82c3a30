package gatehouse

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverInfo covers the one part of a result the guard's middleware does
// not see: on the 2026-07-28 protocol go-sdk adds the server's
// Implementation (name, title, version, websiteUrl, icons) to every
// result's _meta under [mcp.MetaKeyServerInfo] after the middleware has
// returned (SEP-2575), unless the key is already there. When the
// Implementation holds a secret, the guard puts its redacted copy under
// that key first, so go-sdk leaves it alone.
//
// go-sdk reads the Implementation through the pointer given to
// mcp.NewServer on every result, so the guard keeps that pointer (read at
// Install through the private session's initialize, or from the first
// initialize result) and scans it again whenever a field has changed since
// the last scan: a title or websiteUrl set after Install is covered. An
// unchanged Implementation costs a comparison of its fields per request.
// A guard composed through [Guard.Middleware] that has not yet seen an
// initialize (a 2026-07-28 client sends none) does not know the
// Implementation: on a session without initialize it puts a placeholder
// named "[REDACTED]" under the key of a 2026-07-28 request's result
// (fail closed); Install learns it up front.
//
// serverInfo is safe for concurrent use.
type serverInfo struct {
	impl atomic.Pointer[mcp.Implementation] // the server's own; nil until known
	last atomic.Pointer[infoScan]
}

// infoScan is the scan of one state of the Implementation.
type infoScan struct {
	seen mcp.Implementation  // a deep copy of what was scanned
	red  *mcp.Implementation // its redacted copy; nil: nothing to redact
}

// unknownInfo is sent when the Implementation is not known.
var unknownInfo = &mcp.Implementation{Name: "[REDACTED]"}

// noteServerInfo records the server's Implementation.
func (g *Guard) noteServerInfo(si *serverInfo, impl *mcp.Implementation) {
	if impl != nil {
		si.impl.Store(impl)
	}
}

// redacted returns the redacted copy of impl, or nil when DLP redacts
// nothing in it. An Implementation that cannot be scanned is replaced by
// one that holds only the redaction marker: fail closed.
func (g *Guard) redactedInfo(si *serverInfo, impl *mcp.Implementation) *mcp.Implementation {
	if last := si.last.Load(); last != nil && sameInfo(&last.seen, impl) {
		return last.red
	}
	seen := *impl
	seen.Icons = slices.Clone(seen.Icons)
	for i := range seen.Icons {
		seen.Icons[i].Sizes = slices.Clone(seen.Icons[i].Sizes)
	}
	scan := &infoScan{seen: seen, red: unknownInfo}
	if raw, err := json.Marshal(&seen); err == nil {
		if red, findings, err := g.dlp.RedactJSON(raw); err == nil {
			out := new(mcp.Implementation)
			switch {
			case len(findings) == 0:
				scan.red = nil
			case json.Unmarshal(red, out) == nil:
				scan.red = out
			}
		}
	}
	si.last.Store(scan)
	return scan.red
}

// stamp returns res with the redacted Implementation under
// [mcp.MetaKeyServerInfo] in its _meta (a new map; the handler's map is not
// written), unless the result already has that key (then it was scanned
// with the rest of the result) or has no _meta at all (go-sdk's empty
// result of ping and subscribe).
func (g *Guard) stamp(si *serverInfo, req mcp.Request, res mcp.Result) mcp.Result {
	if g.dlp == nil || res == nil {
		return res
	}
	rv := reflect.ValueOf(res)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct || rv.Elem().NumField() == 0 {
		return res
	}
	var red *mcp.Implementation
	if impl := si.impl.Load(); impl != nil {
		red = g.redactedInfo(si, impl)
	} else if newProtocol(req) {
		red = unknownInfo
	}
	if red == nil {
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

// newProtocol reports whether req declares the 2026-07-28 protocol or a
// later one in its _meta, as go-sdk reads it: go-sdk adds the
// Implementation to such a request's result.
func newProtocol(req mcp.Request) bool {
	if req == nil {
		return false
	}
	p := req.GetParams()
	if v := reflect.ValueOf(p); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return false
	}
	pv, ok := p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return ok && pv >= "2026-07-28"
}

// sameInfo reports whether a and b have the same fields.
func sameInfo(a, b *mcp.Implementation) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && a.Version == b.Version &&
		a.WebsiteURL == b.WebsiteURL && slices.EqualFunc(a.Icons, b.Icons, func(x, y mcp.Icon) bool {
		return x.Source == y.Source && x.MIMEType == y.MIMEType && x.Theme == y.Theme && slices.Equal(x.Sizes, y.Sizes)
	})
}
