package audit

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// TimeFormat is the layout of timestamp: UTC with milliseconds (AIP §6.3).
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Directions (AIP §6.1).
const (
	DirectionUpstream   = "upstream"   // client to server
	DirectionDownstream = "downstream" // server to client
)

// Events the Writer itself logs, in the AIP §6.4 `event` field.
const (
	EventRecovered    = "AUDIT_RECOVERED"     // Open repaired a torn tail
	EventChainStarted = "AUDIT_CHAIN_STARTED" // Open started a new chain after a broken one
)

// Event is one audit record: the AIP §6 fields, the AIP §6.4 DLP fields, the
// ACP §7.4 fields, and the chain fields the [Writer] fills in. The json tags
// are the wire names, so json.Unmarshal reads a log line into an Event.
//
// Optional fields are left out of the line when zero. violation is always
// written: AIP §6.1 requires it on every decision. An Event is a plain value:
// do not change it while a Write of it runs.
type Event struct {
	// Chain fields, set by Writer.Write (any value the caller sets is replaced).
	Seq               uint64  `json:"seq"`
	Timestamp         string  `json:"timestamp"`
	PreviousEventHash *string `json:"previous_event_hash"` // nil (null) at genesis
	EventHash         string  `json:"event_hash"`

	// AIP §6.1 (required for decisions).
	Direction  string `json:"direction,omitempty"` // DirectionUpstream or DirectionDownstream
	Decision   string `json:"decision,omitempty"`  // ALLOW, BLOCK, ALLOW_MONITOR, RATE_LIMITED, ...
	PolicyMode string `json:"policy_mode,omitempty"`
	Violation  bool   `json:"violation"`

	// AIP §6.2. Args is the raw JSON object of the tool arguments; the Writer
	// redacts or hashes it as configured before it is logged.
	Method     string          `json:"method,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	FailedArg  string          `json:"failed_arg,omitempty"`
	FailedRule string          `json:"failed_rule,omitempty"`

	// AIP §6.4 DLP events.
	Event         string `json:"event,omitempty"` // e.g. DLP_TRIGGERED
	DLPRule       string `json:"dlp_rule,omitempty"`
	DLPAction     string `json:"dlp_action,omitempty"`
	DLPMatchCount int    `json:"dlp_match_count,omitempty"`

	// ACP §7.4.
	Type           string         `json:"type,omitempty"`
	Version        string         `json:"version,omitempty"`
	ID             string         `json:"id,omitempty"`
	EventType      string         `json:"event_type,omitempty"`
	RequestID      string         `json:"request_id,omitempty"`
	Agent          string         `json:"agent,omitempty"`
	Category       string         `json:"category,omitempty"`
	RiskLevel      string         `json:"risk_level,omitempty"`
	ResponseTimeMS int64          `json:"response_time_ms,omitempty"`
	PolicyRule     string         `json:"policy_rule,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"` // hashed like every other member

	// W3C Trace Context of the request the event belongs to (32 and 16
	// lowercase hex digits), inside the hash chain like every other member,
	// so an event can be found from its trace and a trace from its event.
	// Absent when the request carried no trace context.
	TraceID string `json:"trace_id,omitempty"`
	SpanID  string `json:"span_id,omitempty"`
}

// lineBuilder writes the canonical line of an event. Members are appended in
// RFC 8785 order (all names are ASCII, so byte order), split around
// event_hash so the hash can be computed over the line without it.
type lineBuilder struct {
	pre, post []byte // members before and after "event_hash"
}

func (b *lineBuilder) str(dst []byte, key, val string) []byte {
	if val == "" {
		return dst
	}
	return b.member(b.key(dst, key), val)
}

func (b *lineBuilder) key(dst []byte, key string) []byte {
	if len(dst) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// member appends a Go string value; invalid UTF-8 becomes U+FFFD as in
// encoding/json.
func (b *lineBuilder) member(dst []byte, val string) []byte {
	if utf8.ValidString(val) {
		return appendStringS(dst, val)
	}
	return appendStringS(dst, string([]rune(val)))
}

func (b *lineBuilder) raw(dst []byte, key string, val []byte) []byte {
	if len(val) == 0 {
		return dst
	}
	return append(b.key(dst, key), val...)
}

func (b *lineBuilder) int(dst []byte, key string, n int64) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(b.key(dst, key), n, 10)
}

// build fills pre and post. args and meta are canonical JSON (or empty).
func (b *lineBuilder) build(e *Event, seq uint64, ts []byte, prev string, args, meta []byte) {
	p := b.pre[:0]
	p = b.str(p, "agent", e.Agent)
	p = b.raw(p, "args", args)
	p = b.str(p, "category", e.Category)
	p = b.str(p, "decision", e.Decision)
	p = b.str(p, "direction", e.Direction)
	p = b.str(p, "dlp_action", e.DLPAction)
	p = b.int(p, "dlp_match_count", int64(e.DLPMatchCount))
	p = b.str(p, "dlp_rule", e.DLPRule)
	p = b.str(p, "event", e.Event)
	b.pre = p

	q := b.post[:0]
	q = b.str(q, "event_type", e.EventType)
	q = b.str(q, "failed_arg", e.FailedArg)
	q = b.str(q, "failed_rule", e.FailedRule)
	q = b.str(q, "id", e.ID)
	q = b.raw(q, "metadata", meta)
	q = b.str(q, "method", e.Method)
	q = b.str(q, "policy_mode", e.PolicyMode)
	q = b.str(q, "policy_rule", e.PolicyRule)
	q = b.key(q, "previous_event_hash")
	if prev == "" {
		q = append(q, nullSeg...)
	} else {
		q = appendStringS(q, prev)
	}
	q = b.str(q, "request_id", e.RequestID)
	q = b.int(q, "response_time_ms", e.ResponseTimeMS)
	q = b.str(q, "risk_level", e.RiskLevel)
	q = strconv.AppendUint(b.key(q, "seq"), seq, 10)
	q = b.str(q, "span_id", e.SpanID)
	q = b.key(q, "timestamp")
	q = append(q, '"')
	q = append(q, ts...)
	q = append(q, '"')
	q = b.str(q, "tool", e.Tool)
	q = b.str(q, "trace_id", e.TraceID)
	q = b.str(q, "type", e.Type)
	q = b.str(q, "version", e.Version)
	q = b.key(q, "violation")
	q = strconv.AppendBool(q, e.Violation)
	b.post = q
}

// appendStringS is appendString for a Go string.
func appendStringS(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return appendString(dst, []byte(s))
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
