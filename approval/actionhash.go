package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/gatehouse-dev/gatehouse/internal/jsonnum"
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
// ActionHash is stricter than JCS in three places, each a parser
// differential an attacker could use to make two different calls hash alike:
// duplicate object keys are refused (JCS rejects them too), invalid UTF-8 is
// refused, and so is a number whose value IEEE-754 double precision cannot
// hold exactly (12345678901234567891 would canonicalize like
// 12345678901234567890 while a tool decoding json.Number sees two values).
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
// [ActionHash] hashes them, with the same rules and errors.
func CanonicalArguments(rawArgs []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(rawArgs)
	if len(trimmed) == 0 {
		return []byte("{}"), nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%w: arguments must be a JSON object", ErrInvalidArguments)
	}
	if !utf8.Valid(trimmed) {
		return nil, fmt.Errorf("%w: arguments are not valid UTF-8", ErrInvalidArguments)
	}
	canon, err := jcs.Transform(trimmed)
	if err != nil {
		// The JCS error may quote argument content; keep it out of the message.
		return nil, fmt.Errorf("%w: arguments are not canonicalizable JSON (RFC 8785)", ErrInvalidArguments)
	}
	if err := checkNumbers(trimmed); err != nil {
		return nil, err
	}
	return canon, nil
}

// checkNumbers refuses numbers whose decimal value differs from the value of
// the IEEE-754 double JCS serializes for them.
func checkNumbers(raw []byte) error {
	if !hasRiskyNumber(raw) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil { // JCS accepted the syntax; refuse anyway rather than skip numbers
			return fmt.Errorf("%w: arguments are not valid JSON", ErrInvalidArguments)
		}
		n, ok := tok.(json.Number)
		if ok && !jsonnum.ExactDouble(string(n)) {
			return fmt.Errorf("%w: a number is outside the IEEE-754 double range or has more precision than RFC 8785 (IEEE-754 double) preserves", ErrInvalidArguments)
		}
	}
}

// hasRiskyNumber is a fast pre-check: a number can lose precision only if it
// has more than 15 significant digits or an exponent. Strings are skipped.
func hasRiskyNumber(raw []byte) bool {
	inString, escaped := false, false
	digits := 0
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString, digits = true, 0
		case c >= '0' && c <= '9':
			digits++
			if digits > 15 {
				return true
			}
		case c == 'e' || c == 'E':
			return true
		case c == '.' || c == '-' || c == '+':
		default:
			digits = 0
		}
	}
	return false
}
