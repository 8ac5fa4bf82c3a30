package consent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// maxJSONBytes bounds hashed values, so hostile arguments cannot make
// hashing costly; nesting is bounded by jcs.MaxDepth (100).
const maxJSONBytes = 1 << 20

// ActionHash returns "sha256:" and the lower-case hex SHA-256 of the RFC 8785
// (JCS) serialization of params (ACP §6.2 action_hash). A nil map hashes as
// the empty object. Equal JSON values hash equal whatever their key order or
// number spelling (json.Number "1.0" and "1").
//
// params must be plain JSON: nil, bool, valid UTF-8 strings, finite numbers
// (Go numbers or json.Number), []any, map[string]any, nested at most 100
// deep and at most 1 MiB serialized, with no object holding two member
// names equal under case folding ("path" and "PATH": readers disagree on
// which one is meant). Anything else wraps [ErrInvalidRequest]; invalid
// UTF-8 is refused rather than replaced, so two different byte strings never
// hash alike.
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

// canonicalJSON returns the canonical bytes of v: gatehouse's one canonical
// form (internal/jcs) under its strict rule, shared with approval's action
// hash and the loop fingerprint, so all of them agree on which calls are the
// same.
func canonicalJSON(v any, what string) ([]byte, error) {
	out, err := jcs.AppendValue(nil, v, jcs.Strict)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s", ErrInvalidRequest, what, plainReason(err))
	}
	if len(out) > maxJSONBytes {
		return nil, fmt.Errorf("%w: %s serialize to %d bytes, at most %d allowed", ErrInvalidRequest, what, len(out), maxJSONBytes)
	}
	return out, nil
}

// plainReason says why a value is not plain JSON; never values.
func plainReason(err error) string {
	switch {
	case errors.Is(err, jcs.ErrInexactNumber):
		// RFC 8785 rounds to an IEEE-754 double: two different numbers
		// would hash alike, so a proof could cover another call.
		return "hold a number with more precision than RFC 8785 keeps"
	case errors.Is(err, jcs.ErrFoldedNames):
		return "are ambiguous: " + strings.TrimPrefix(err.Error(), jcs.ErrInvalid.Error()+": ")
	}
	return "are not plain JSON (" + strings.TrimPrefix(err.Error(), jcs.ErrInvalid.Error()+": ") + ")"
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
