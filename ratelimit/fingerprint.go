package ratelimit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// Bounds on fingerprint input, so a hostile argument cannot make
// fingerprinting expensive.
const (
	maxFingerprintDepth = 64
	maxFingerprintBytes = 1 << 20
)

// FingerprintOf returns the fingerprint of a tool call for repetitive-loop
// detection (QWED §9.3): SHA-256 of the canonical JSON of
// {"arguments": args, "tool": tool} in gatehouse's one canonical form
// (internal/jcs, shared with the approval and consent hashes). Equal JSON
// values give equal fingerprints whatever their key order or number spelling
// (1.0 and 1); a number a double cannot hold exactly is kept as written
// (rule jcs.AsWritten), so two different big ids never share a fingerprint.
//
// args must be plain JSON (QWED §9.3): nil, bool, string (valid UTF-8),
// finite numbers (float64, float32, Go integers, json.Number),
// json.RawMessage holding valid JSON, []any, []string, map[string]any and
// map[string]string, nested at most 64 deep and at most 1 MiB serialized,
// with no object holding two member names equal under case folding.
// Anything else, NaN and ±Inf included, is an [*Error] with
// [CodeActionInvalid].
func FingerprintOf(tool string, args any) (Fingerprint, error) {
	if !utf8.ValidString(tool) {
		return Fingerprint{}, invalidAction("tool name is not valid UTF-8")
	}
	if b := checkJSON(args, 0); b != nil {
		return Fingerprint{}, b.err()
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := append((*bp)[:0], `{"arguments":`...)
	buf, err := jcs.AppendValue(buf, args, jcs.Rule{Numbers: jcs.AsWritten})
	if err != nil {
		return Fingerprint{}, invalidAction("arguments cannot be canonicalized (RFC 8785): " + strings.TrimPrefix(err.Error(), jcs.ErrInvalid.Error()+": "))
	}
	buf = jcs.AppendString(append(buf, `,"tool":`...), tool)
	buf = append(buf, '}')
	if len(buf) > maxFingerprintBytes {
		return Fingerprint{}, invalidAction(fmt.Sprintf("arguments serialize to %d bytes, at most %d allowed", len(buf), maxFingerprintBytes))
	}
	fp := Fingerprint(sha256.Sum256(buf))
	if cap(buf) <= 64<<10 {
		*bp = buf // keep small buffers for reuse
	}
	return fp, nil
}

// String returns the fingerprint in lowercase hex.
func (f Fingerprint) String() string { return hex.EncodeToString(f[:]) }

func invalidAction(reason string) error {
	return &Error{Code: CodeActionInvalid, Reason: "cannot fingerprint action: " + reason}
}

// badJSON says why a value is not plain JSON and where: path is built while
// unwinding, so valid input costs no allocation for it.
type badJSON struct {
	why  string
	path []string // innermost segment first
}

func (b *badJSON) at(seg string) *badJSON { b.path = append(b.path, seg); return b }

func (b *badJSON) Error() string { return b.why }

// bufPool holds the buffers fingerprints are built in.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func (b *badJSON) err() error {
	p := "arguments"
	for i := len(b.path) - 1; i >= 0; i-- {
		p += b.path[i]
	}
	return invalidAction(p + " " + b.why)
}

// checkJSON walks v and rejects what is not plain JSON. Messages name the
// place ("arguments.a[2]"), never the value.
func checkJSON(v any, depth int) *badJSON {
	if depth > maxFingerprintDepth {
		return &badJSON{why: fmt.Sprintf("nests deeper than %d levels", maxFingerprintDepth)}
	}
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return nil
	case string:
		if !utf8.ValidString(x) {
			return &badJSON{why: "is a string that is not valid UTF-8"}
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return &badJSON{why: "is a non-finite number (NaN or Inf)"}
		}
	case float32:
		return checkJSON(float64(x), depth)
	case json.Number:
		// The grammar is checked when writing; a number a double cannot
		// hold is kept as written (jcs.AsWritten), never rounded.
		if !json.Valid([]byte(x)) {
			return &badJSON{why: "is not a JSON number"}
		}
	case json.RawMessage:
		if !json.Valid(x) {
			return &badJSON{why: "is raw text that is not valid JSON"}
		}
	case []any:
		for i, e := range x {
			if b := checkJSON(e, depth+1); b != nil {
				return b.at("[" + strconv.Itoa(i) + "]")
			}
		}
	case []string:
		for i, e := range x {
			if b := checkJSON(e, depth+1); b != nil {
				return b.at("[" + strconv.Itoa(i) + "]")
			}
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) {
				return &badJSON{why: "has a key that is not valid UTF-8"}
			}
			if b := checkJSON(e, depth+1); b != nil {
				return b.at("." + truncate(k, 32))
			}
		}
	case map[string]string:
		for k, e := range x {
			if !utf8.ValidString(k) || !utf8.ValidString(e) {
				return &badJSON{why: "has a key or value that is not valid UTF-8"}
			}
		}
	case map[any]any, map[int]any, map[int64]any, map[float64]any, map[bool]any:
		return &badJSON{why: "is a map with non-string keys"}
	default:
		return &badJSON{why: fmt.Sprintf("is a Go %T, not a JSON value", v)}
	}
	return nil
}
