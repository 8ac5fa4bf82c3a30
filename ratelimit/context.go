package ratelimit

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// MaxConversationIDLen bounds conversation_id (QWED §9.1 only says non-empty).
const MaxConversationIDLen = 256

// ParseContext reads the action context of QWED §9.1 from a decoded JSON
// object, such as a tool call's _meta or a request's "context" member:
// "conversation_id" (non-empty string of at most [MaxConversationIDLen]
// bytes) and "step_number" (integer >= 1). Numbers may be float64 or
// json.Number. A missing field is [ErrContextMissing]; a present but wrong one
// is [ErrStepInvalid] or, for conversation_id, [ErrContextMissing] with the
// reason.
func ParseContext(m map[string]any) (conversationID string, step int64, err error) {
	rawID, hasID := m["conversation_id"]
	rawStep, hasStep := m["step_number"]
	if !hasID || !hasStep {
		return "", 0, &Error{Code: CodeContextMissing, Reason: "action context needs conversation_id and step_number"}
	}
	id, ok := rawID.(string)
	switch {
	case !ok:
		return "", 0, &Error{Code: CodeContextMissing, Reason: fmt.Sprintf("conversation_id must be a string, got %s", jsonKind(rawID))}
	case id == "":
		return "", 0, &Error{Code: CodeContextMissing, Reason: "conversation_id is empty"}
	case len(id) > MaxConversationIDLen:
		return "", 0, &Error{Code: CodeContextMissing, Reason: fmt.Sprintf("conversation_id is %d bytes, at most %d allowed", len(id), MaxConversationIDLen)}
	}
	step, ok = stepNumber(rawStep)
	if !ok {
		return "", 0, &Error{Code: CodeStepInvalid, Reason: fmt.Sprintf("step_number must be an integer >= 1, got %s", jsonKind(rawStep))}
	}
	if step < 1 {
		return "", 0, &Error{Code: CodeStepInvalid, Reason: fmt.Sprintf("step_number must be >= 1, got %d", step)}
	}
	return id, step, nil
}

func stepNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// jsonKind names a value's JSON kind for error messages without quoting it.
func jsonKind(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + truncate(string(n), 24)
	case float64:
		return "the number " + strconv.FormatFloat(n, 'g', -1, 64)
	case int, int64:
		return fmt.Sprintf("the number %d", n)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a Go %T", v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
