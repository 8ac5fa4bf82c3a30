// Package elicitstate seals the request state of the guard's elicitation
// round trip (gatehouse.AddTool): what the first round asked the user
// about, signed so that the retry that carries the answer can be checked
// against the call it approves.
//
// # Security
//
// A State is authenticated with HMAC-SHA256 under the Sealer's key, with a
// domain-separation prefix, and compared in constant time. Open refuses any
// token that was not produced by Seal under the same key, any token longer
// than MaxTokenLen, and any payload of another version. The state is signed,
// not encrypted: it holds a hash of the arguments, never their values.
//
// # Concurrency
//
// A Sealer is safe for concurrent use.
package elicitstate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxTokenLen bounds a sealed token; Open refuses longer ones unread.
const MaxTokenLen = 4096

// ErrInvalid is returned by Open for a token that does not verify.
var ErrInvalid = errors.New("elicitstate: invalid approval state")

// State is what a sealed token carries.
type State struct {
	V     int    `json:"v"` // always 1
	Tool  string `json:"t"` // normalized tool name
	Def   string `json:"d"` // digest of the tool's definition
	Agent string `json:"a"` // agent identity
	Args  string `json:"h"` // hex SHA-256 of the canonical arguments
	Exp   int64  `json:"e"` // expiry, unix milliseconds
	Nonce string `json:"n"` // single-use nonce, hex
}

// Sealer seals and opens states under one key.
type Sealer struct {
	key []byte
}

// NewSealer returns a Sealer for key, which must have at least 32 bytes.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) < 32 {
		return nil, fmt.Errorf("elicitstate: key has %d bytes, want at least 32", len(key))
	}
	return &Sealer{key: append([]byte(nil), key...)}, nil
}

func (s *Sealer) mac(b []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("gatehouse approval state v1\x00"))
	m.Write(b)
	return m.Sum(nil)
}

// Seal returns the token for st (its V is set to 1).
func (s *Sealer) Seal(st State) (string, error) {
	st.V = 1
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("elicitstate: %w", err)
	}
	enc := base64.RawURLEncoding
	tok := enc.EncodeToString(b) + "." + enc.EncodeToString(s.mac(b))
	if len(tok) > MaxTokenLen {
		return "", fmt.Errorf("elicitstate: state of %d bytes exceeds %d", len(tok), MaxTokenLen)
	}
	return tok, nil
}

// Open returns the state sealed in tok, or ErrInvalid.
func (s *Sealer) Open(tok string) (State, error) {
	var st State
	if len(tok) > MaxTokenLen {
		return st, ErrInvalid
	}
	body, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return st, ErrInvalid
	}
	enc := base64.RawURLEncoding
	b, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(b)) {
		return st, ErrInvalid
	}
	if err := json.Unmarshal(b, &st); err != nil || st.V != 1 {
		return State{}, ErrInvalid
	}
	return st, nil
}
