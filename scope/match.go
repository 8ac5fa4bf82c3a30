package scope

import (
	"encoding/json"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/internal/glob"
	"github.com/gatehouse-dev/gatehouse/normalize"
)

// ValidToken reports whether s is an RFC 6749 §3.3 scope-token:
// 1*( %x21 / %x23-5B / %x5D-7E ), printable ASCII without space, '"' and
// '\'.
func ValidToken(s string) error {
	if s == "" {
		return &Error{Err: ErrSyntax, Msg: "empty scope"}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return &Error{Err: ErrSyntax, Msg: fmt.Sprintf("%q is not an RFC 6749 scope-token: byte %d (%#x) is outside %%x21 / %%x23-5B / %%x5D-7E", clip(s), i, c)}
		}
	}
	return nil
}

// matches reports, per when of t, whether the raw arguments match it. The
// JSON is read token by token, so every member counts at every depth: two
// members whose names are equal, exactly or under normalization ("env",
// "ENV", "e\u200bnv"), are each matched, and a call cannot hide "prod"
// behind a second "env" that a handler's decoder would read differently.
func (t *tool) matches(raw json.RawMessage) ([]bool, error) {
	hit := make([][]bool, len(t.when)) // per when, per arg pattern
	for i, w := range t.when {
		hit[i] = make([]bool, len(w.args))
	}
	wanted := func(nk string) bool {
		for _, w := range t.when {
			for _, ap := range w.args {
				if ap.key == nk {
					return true
				}
			}
		}
		return false
	}
	err := members(raw, wanted, func(nk string, leaves []string) {
		for i, w := range t.when {
			for j, ap := range w.args {
				if !hit[i][j] && ap.key == nk && ap.anyLeaf(leaves) {
					hit[i][j] = true
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(t.when))
	for i := range t.when {
		out[i] = true
		for _, h := range hit[i] {
			out[i] = out[i] && h
		}
	}
	return out, nil
}

func (ap argPattern) anyLeaf(leaves []string) bool {
	for _, l := range leaves {
		if ap.leaf(l) {
			return true
		}
	}
	return false
}

func (ap argPattern) leaf(s string) bool {
	n := normalize.Name(s)
	for _, p := range ap.vals {
		if glob.Match(p, n) {
			return true
		}
	}
	return false
}
