package consent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/gatehouse-dev/gatehouse/internal/jsonnum"
)

// Bounds on hashed values, so hostile arguments cannot make hashing costly.
const (
	maxDepth     = 64
	maxJSONBytes = 1 << 20
)

// ActionHash returns "sha256:" and the lower-case hex SHA-256 of the RFC 8785
// (JCS) serialization of params (ACP §6.2 action_hash). A nil map hashes as
// the empty object. Equal JSON values hash equal whatever their key order or
// number spelling (json.Number "1.0" and "1").
//
// params must be plain JSON: nil, bool, valid UTF-8 strings, finite numbers
// (Go numbers or json.Number), []any, map[string]any, nested at most 64
// deep and at most 1 MiB serialized. Anything else wraps [ErrInvalidRequest];
// invalid UTF-8 is refused rather than replaced, so two different byte
// strings never hash alike.
func ActionHash(params map[string]any) (string, error) {
	if params == nil {
		params = map[string]any{}
	}
	return hashJSON(params, "parameters")
}

func hashJSON(v any, what string) (string, error) {
	b, err := canonicalJSON(v, what)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSON returns the JCS bytes of v after checking it is plain JSON.
func canonicalJSON(v any, what string) ([]byte, error) {
	if err := checkPlain(v, 0); err != nil {
		return nil, fmt.Errorf("%w: %s %s", ErrInvalidRequest, what, err.Error())
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s are not JSON", ErrInvalidRequest, what)
	}
	if len(raw) > maxJSONBytes {
		return nil, fmt.Errorf("%w: %s serialize to %d bytes, at most %d allowed", ErrInvalidRequest, what, len(raw), maxJSONBytes)
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s cannot be canonicalized (RFC 8785)", ErrInvalidRequest, what)
	}
	return out, nil
}

type plainError string

func (e plainError) Error() string { return string(e) }

// checkPlain rejects what json.Marshal would alter or refuse. Messages never
// quote values.
func checkPlain(v any, depth int) error {
	if depth > maxDepth {
		return plainError(fmt.Sprintf("nest deeper than %d levels", maxDepth))
	}
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
	case string:
		if !utf8.ValidString(x) {
			return plainError("hold a string that is not valid UTF-8")
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return plainError("hold a non-finite number")
		}
	case float32:
		return checkPlain(float64(x), depth)
	case json.Number:
		if _, err := jcs.Transform([]byte(x)); err != nil || x == "" {
			return plainError("hold an invalid json.Number")
		}
		if !jsonnum.ExactDouble(string(x)) {
			// RFC 8785 rounds to an IEEE-754 double: two different numbers
			// would hash alike, so a proof could cover another call.
			return plainError("hold a number with more precision than RFC 8785 keeps")
		}
	case []any:
		for _, e := range x {
			if err := checkPlain(e, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) {
				return plainError("hold a key that is not valid UTF-8")
			}
			if err := checkPlain(e, depth+1); err != nil {
				return err
			}
		}
	default:
		return plainError(fmt.Sprintf("hold a value of Go type %T, not plain JSON", v))
	}
	return nil
}

// ApplyModifications returns the parameters a call runs with after an
// approval with modifications: a shallow copy of params whose top-level keys
// are replaced by those of mods (a key mapped to nil becomes JSON null).
// With nil mods it returns a copy of params.
func ApplyModifications(params, mods map[string]any) map[string]any {
	out := make(map[string]any, len(params)+len(mods))
	for k, v := range params {
		out[k] = v
	}
	for k, v := range mods {
		out[k] = v
	}
	return out
}
