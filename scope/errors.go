package scope

import (
	"errors"
	"fmt"
)

// Sentinels that every *Error wraps, for errors.Is.
var (
	// ErrSyntax: a scope is not an RFC 6749 §3.3 scope-token.
	ErrSyntax = errors.New("scope: invalid scope syntax")
	// ErrEmpty: an empty scope list, tool name, argument or pattern.
	ErrEmpty = errors.New("scope: empty value")
	// ErrToolName: a tool name with '*': names are exact (a '*' would
	// match nothing, and the tools it was meant for would need only the
	// default).
	ErrToolName = errors.New("scope: invalid tool name")
	// ErrDuplicateTool: two tools share a normalized name.
	ErrDuplicateTool = errors.New("scope: tool named twice")
	// ErrDuplicateArg: two argument patterns of one when share a
	// normalized name.
	ErrDuplicateArg = errors.New("scope: argument named twice")
	// ErrRequirement: a requirement sets both all and any.
	ErrRequirement = errors.New("scope: invalid requirement")
	// ErrUnknownField: a document field this package does not know.
	ErrUnknownField = errors.New("scope: unknown field")
	// ErrDocument: the document is not YAML or not of the expected shape
	// (apiVersion, kind, types).
	ErrDocument = errors.New("scope: invalid document")
	// ErrArgs: a call's arguments are not one JSON object.
	ErrArgs = errors.New("scope: arguments are not a JSON object")
)

// Error is a configuration error. From a YAML document Line and Col say
// where (1-based); from a Go Config they are 0 and Path names the field
// ("tools[1].when[0].all[2]"), which Parse also fills in.
type Error struct {
	Line, Col int
	Path      string
	Msg       string
	Err       error // one of the sentinels above
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col == 0:
		return fmt.Sprintf("scope: line %d: %s", e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("scope: line %d, column %d: %s", e.Line, e.Col, e.Msg)
	case e.Path != "":
		return fmt.Sprintf("scope: %s: %s", e.Path, e.Msg)
	}
	return "scope: " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

func errPath(path string, sentinel error, format string, args ...any) *Error {
	return &Error{Path: path, Err: sentinel, Msg: fmt.Sprintf(format, args...)}
}
