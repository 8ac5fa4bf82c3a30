package approval

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/jcs"
)

// ActionHash returns the SEP-2672 §4.6 action hash of a tool call:
//
//	SHA-256( utf8(tool) || 0x00 || JCS(rawArgs) || 0x00 || utf8(serverID) )
//
// rawArgs are the arguments exactly as received on the wire; they are
// canonicalized with RFC 8785 (JCS) and nothing else: no schema defaults, no
// coercion. Absent arguments (len(rawArgs) == 0) are hashed as {}, the value
// of a tools/call without arguments; any other input must be a JSON object.
//
// ActionHash is stricter than JCS in four places, each a parser
// differential an attacker could use to make two different calls hash alike
// or make the hash cover another call than the one that runs: duplicate
// object keys are refused (JCS rejects them too), so are member names equal
// under case folding, invalid UTF-8, and a number whose value IEEE-754
// double precision cannot hold exactly (12345678901234567891 would
// canonicalize like 12345678901234567890 while a tool decoding json.Number
// sees two values).
// These errors wrap [ErrInvalidArguments]. tool and serverID must be valid
// UTF-8 without 0x00 bytes, so the separators stay unambiguous; serverID must
// not be empty.
func ActionHash(tool string, rawArgs []byte, serverID string) ([32]byte, error) {
	canon, err := CanonicalArguments(rawArgs)
	if err != nil {
		return [32]byte{}, err
	}
	return actionHashCanonical(tool, canon, serverID)
}

func actionHashCanonical(tool string, canon []byte, serverID string) ([32]byte, error) {
	if err := checkField("tool name", tool); err != nil {
		return [32]byte{}, err
	}
	if serverID == "" {
		return [32]byte{}, fmt.Errorf("%w: empty", ErrInvalidServerID)
	}
	if err := checkField("serverId", serverID); err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canon)
	h.Write([]byte{0})
	h.Write([]byte(serverID))
	var sum [32]byte
	h.Sum(sum[:0])
	return sum, nil
}

func checkField(what, s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: %s is not valid UTF-8 without NUL bytes", ErrInvalidArguments, what)
	}
	return nil
}

// CanonicalArguments returns the RFC 8785 canonical form of tool arguments as
// [ActionHash] hashes them, with the same rules and errors: the strict rule
// of gatehouse's one canonical form (internal/jcs), which also refuses an
// object, at any depth, with member names equal under Unicode case folding
// ({"path":"/etc/passwd","PATH":"/tmp/junk"}): encoding/json would read
// one member, go-sdk's handler the other, so no prompt or hash could say
// which call was approved.
func CanonicalArguments(rawArgs []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(rawArgs)
	if len(trimmed) == 0 {
		return []byte("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: arguments must be a JSON object", ErrInvalidArguments)
	}
	canon, err := jcs.Transform(trimmed, jcs.Strict)
	if err != nil {
		return nil, canonError(err)
	}
	return canon, nil
}

// canonError says why arguments have no canonical form without quoting
// their values (member names may be quoted).
func canonError(err error) error {
	switch {
	case errors.Is(err, jcs.ErrInexactNumber):
		return fmt.Errorf("%w: a number is outside the IEEE-754 double range or has more precision than RFC 8785 (IEEE-754 double) preserves", ErrInvalidArguments)
	case errors.Is(err, jcs.ErrFoldedNames):
		return fmt.Errorf("%w: %s", ErrInvalidArguments, strings.TrimPrefix(err.Error(), jcs.ErrInvalid.Error()+": "))
	}
	return fmt.Errorf("%w: arguments are not canonicalizable JSON (RFC 8785)", ErrInvalidArguments)
}

// ArgumentsHash returns the SHA-256 of [CanonicalArguments](rawArgs): the
// hash of the arguments alone, for state that must bind a call's arguments
// (the root package's elicitation state). It equals consent.ActionHash of
// the same arguments decoded with json.Decoder.UseNumber (without its
// "sha256:" prefix): both use gatehouse's one canonical form, so approval,
// consent and elicitation agree on which arguments are the same, and refuse
// the same arguments.
func ArgumentsHash(rawArgs []byte) ([32]byte, error) {
	canon, err := CanonicalArguments(rawArgs)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(canon), nil
}
