package consent

import (
	"context"
	"fmt"
)

// ScopeOnce is the scope of an approval that covers the one call: the
// default, and what an empty Reply.Scope means.
const ScopeOnce = "once"

// ScopeOption is one way the server offers to remember an approval (the
// root package's grants): this tool with these arguments for a while, for
// a number of calls, or for the session. The human picks one when
// approving, or none ([ScopeOnce]).
type ScopeOption struct {
	ID    string // what Reply.Scope names
	Title string // what the human reads, e.g. "for 15m0s, up to 3 calls"
}

type scopesKey struct{}

// OfferedScopes returns the scopes a channel may offer its human for the
// request being asked (Request.Scopes), beside the ACP request: the
// consent request itself (and its hash) is unchanged. None means only
// [ScopeOnce].
func OfferedScopes(ctx context.Context) []ScopeOption {
	s, _ := ctx.Value(scopesKey{}).([]ScopeOption)
	return s
}

func withScopes(ctx context.Context, s []ScopeOption) context.Context {
	if len(s) == 0 {
		return ctx
	}
	return context.WithValue(ctx, scopesKey{}, s)
}

// chosenScope checks a reply's scope against the offered ones: "" and
// ScopeOnce are always allowed; anything else must be offered.
func chosenScope(offered []ScopeOption, id string) (string, error) {
	if id == "" || id == ScopeOnce {
		return ScopeOnce, nil
	}
	for _, o := range offered {
		if o.ID == id {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: the reply chose scope %q, which was not offered", ErrChannel, clip(id))
}
