package gatehouse

import (
	"context"
	"encoding/hex"
	"errors"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TraceContext is a W3C Trace Context (https://www.w3.org/TR/trace-context/)
// as gatehouse carries it: the trace a request belongs to and the span that
// stands for it. The Guard reads it from a request's params._meta
// (traceparent, tracestate: SEP-414, the MCP convention for OpenTelemetry
// propagation) or from the context ([ContextWithTrace]), and writes TraceID
// and SpanID into every audit event of the request (audit.Event.TraceID,
// SpanID, inside the hash chain), so an event can be found from its trace
// and a trace from its event.
//
// An [Observer] that starts a span for the request returns a context that
// carries the span's own TraceContext (ContextWithTrace); the audit events
// then name that span. Without one, SpanID is the client's span (the
// traceparent's parent-id).
type TraceContext struct {
	TraceID [16]byte // not all zero; the audit log writes it as 32 lowercase hex digits
	SpanID  [8]byte  // not all zero; 16 hex digits in the audit log
	Flags   byte     // trace-flags; bit 0 is "sampled"
	// State is the tracestate value as received (at most 512 bytes, else
	// dropped). It is never written to the audit log.
	State string
}

// Valid reports whether t has non-zero ids (W3C Trace Context §3.2.2.3,
// §3.2.2.4).
func (t TraceContext) Valid() bool {
	return t.TraceID != [16]byte{} && t.SpanID != [8]byte{}
}

// TraceIDString is the trace id as 32 lowercase hex digits.
func (t TraceContext) TraceIDString() string { return hex.EncodeToString(t.TraceID[:]) }

// SpanIDString is the span id as 16 lowercase hex digits.
func (t TraceContext) SpanIDString() string { return hex.EncodeToString(t.SpanID[:]) }

// hexIDs are TraceIDString and SpanIDString made in one allocation, for
// the audit event of every request.
func (t TraceContext) hexIDs() (traceID, spanID string) {
	var b [48]byte
	hex.Encode(b[:32], t.TraceID[:])
	hex.Encode(b[32:], t.SpanID[:])
	s := string(b[:])
	return s[:32], s[32:]
}

// Traceparent is t in the traceparent header's version-00 form.
func (t TraceContext) Traceparent() string {
	return "00-" + t.TraceIDString() + "-" + t.SpanIDString() + "-" + hex.EncodeToString([]byte{t.Flags})
}

// ErrTraceparent is returned by [ParseTraceparent] for a value that is not
// a traceparent.
var ErrTraceparent = errors.New("gatehouse: malformed traceparent")

// maxTraceState bounds the tracestate kept (W3C Trace Context §3.3.1.5:
// vendors should propagate at least 512 characters).
const maxTraceState = 512

// ParseTraceparent parses a traceparent value (W3C Trace Context §3.2):
// version-traceid-parentid-flags in lowercase hex. Version ff and all-zero
// ids are invalid; a later version may carry more fields after a dash,
// which are ignored (§3.2.4).
func ParseTraceparent(s string) (TraceContext, error) {
	if len(s) < 55 || (len(s) > 55 && (s[:2] == "00" || s[55] != '-')) {
		return TraceContext{}, ErrTraceparent
	}
	if !isHexAny(s[:2]) || s[:2] == "ff" || s[2] != '-' || s[35] != '-' || s[52] != '-' || !isHexAny(s[53:55]) {
		return TraceContext{}, ErrTraceparent
	}
	if !isHexAny(s[3:35]) || !isHexAny(s[36:52]) {
		return TraceContext{}, ErrTraceparent
	}
	t := TraceContext{Flags: unhex(s[53])<<4 | unhex(s[54])}
	hex.Decode(t.TraceID[:], []byte(s[3:35]))
	hex.Decode(t.SpanID[:], []byte(s[36:52]))
	if !t.Valid() {
		return TraceContext{}, ErrTraceparent
	}
	return t, nil
}

type traceKey struct{}

// traceCtx is a context carrying a TraceContext: one allocation, where
// context.WithValue would take two (the value's and the context's).
type traceCtx struct {
	context.Context
	t TraceContext
}

func (c *traceCtx) Value(key any) any {
	if _, ok := key.(traceKey); ok {
		return &c.t
	}
	return c.Context.Value(key)
}

// ContextWithTrace returns ctx carrying t, for a transport or an Observer
// that knows the request's trace. Invalid ids are ignored. Like
// context.WithValue, it panics on a nil ctx.
func ContextWithTrace(ctx context.Context, t TraceContext) context.Context {
	if !t.Valid() {
		return ctx
	}
	if ctx == nil {
		panic("cannot create context from nil parent") // context.WithValue's, as before
	}
	return &traceCtx{Context: ctx, t: t}
}

// TraceFromContext returns the TraceContext in ctx: the request's, from
// its _meta, or one a transport or Observer set.
func TraceFromContext(ctx context.Context) (TraceContext, bool) {
	if t, ok := ctx.Value(traceKey{}).(*TraceContext); ok {
		return *t, true
	}
	return TraceContext{}, false
}

// requestTrace is the trace context of req's params._meta (SEP-414), if it
// has a valid traceparent.
func requestTrace(req mcp.Request) (TraceContext, bool) {
	meta := requestMeta(req)
	if meta == nil {
		return TraceContext{}, false
	}
	tp, _ := meta["traceparent"].(string)
	if tp == "" {
		return TraceContext{}, false
	}
	t, err := ParseTraceparent(tp)
	if err != nil {
		return TraceContext{}, false // W3C §4.3: an invalid parent starts a new trace
	}
	if ts, _ := meta["tracestate"].(string); len(ts) <= maxTraceState {
		t.State = ts
	}
	return t, true
}

// requestMeta is params._meta of req, nil when it has no params.
func requestMeta(req mcp.Request) map[string]any {
	if c, ok := req.(*mcp.CallToolRequest); ok {
		if c.Params == nil {
			return nil
		}
		return c.Params.Meta
	}
	if req == nil {
		return nil
	}
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil // a typed nil: GetMeta would dereference it
	}
	return p.GetMeta()
}

func isHexAny(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func unhex(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}
