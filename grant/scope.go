package grant

import (
	"fmt"
	"strings"
	"time"
)

// MaxDuration bounds a scope's lifetime: a remembered approval is a
// convenience, never a standing permission.
const MaxDuration = 30 * 24 * time.Hour

// Scope is one way a server author offers to remember an approval; the
// human chooses one of the offered scopes (or [Once]) when approving.
type Scope struct {
	// ID names the scope in answers and forms: lowercase letters, digits,
	// '-' and '_', at most MaxScopeIDLen bytes, never "once".
	ID string
	// Title is what the human reads; "" means [Scope.Describe].
	Title string
	// Duration is how long the grant lives (for Session scopes: at most);
	// required, at most MaxDuration.
	Duration time.Duration
	// Uses is how many calls the grant lets through; 0 means any number
	// within Duration.
	Uses int
	// Session binds the grant to the MCP session it was made on.
	Session bool
	// Patterns lets arguments the policy rule constrains with allow_args
	// patterns take any value the pattern accepts; every other argument
	// keeps the approved value exactly. Without it every value is exact.
	Patterns bool
}

// Validate checks s.
func (s Scope) Validate() error {
	if s.ID == "" || s.ID == Once || len(s.ID) > MaxScopeIDLen || strings.Trim(s.ID, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return fmt.Errorf("%w: scope id %q: want lowercase letters, digits, '-' and '_', not %q", ErrInvalid, clip(s.ID), Once)
	}
	if s.Duration <= 0 || s.Duration > MaxDuration {
		return fmt.Errorf("%w: scope %q: duration %v, want > 0 and at most %v", ErrInvalid, s.ID, s.Duration, MaxDuration)
	}
	if s.Uses < 0 {
		return fmt.Errorf("%w: scope %q: uses %d is negative", ErrInvalid, s.ID, s.Uses)
	}
	return nil
}

// Describe is the default title of s, e.g. "for 15m0s, up to 3 calls,
// with exactly these arguments".
func (s Scope) Describe() string {
	if s.Title != "" {
		return s.Title
	}
	var b strings.Builder
	if s.Session {
		fmt.Fprintf(&b, "for this session (at most %v)", s.Duration)
	} else {
		fmt.Fprintf(&b, "for %v", s.Duration)
	}
	if s.Uses > 0 {
		fmt.Fprintf(&b, ", up to %d calls", s.Uses)
	}
	if s.Patterns {
		b.WriteString(", with arguments the policy's patterns allow")
	} else {
		b.WriteString(", with exactly these arguments")
	}
	return b.String()
}

// Choose returns the scope of offered whose ID is id. ok is false for
// [Once], and err is set for an id that is not offered.
func Choose(offered []Scope, id string) (s Scope, ok bool, err error) {
	if id == "" || id == Once {
		return Scope{}, false, nil
	}
	for _, o := range offered {
		if o.ID == id {
			return o, true, nil
		}
	}
	return Scope{}, false, fmt.Errorf("%w: scope %q is not offered for this tool", ErrInvalid, clip(id))
}
