package approval

import "context"

type definitionKey struct{}

// WithDefinition returns ctx carrying def, an identifier of the tool
// definition a call is made against (gatehouse binds the tool's definition
// digest, so that an approval given for a tool that has changed since is
// void). [Gate.CreateChallenge] stores it with the challenge, and
// [Gate.Verify] refuses a challenge issued under another definition than
// the one in its ctx (challenge_wrong_tool, SEP-2672 §4.8 step 7: a changed
// tool is another tool). Without it both are "", which matches.
//
// The definition is not part of the action hash: SEP-2672 §4.6 fixes that
// hash, and the binding needs no signature because the challenge store is
// the server's own.
func WithDefinition(ctx context.Context, def string) context.Context {
	return context.WithValue(ctx, definitionKey{}, def)
}

// definitionFrom returns the definition set by WithDefinition, or "".
func definitionFrom(ctx context.Context) string {
	d, _ := ctx.Value(definitionKey{}).(string)
	return d
}
