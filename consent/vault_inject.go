package consent

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/gatehouse-dev/gatehouse/normalize"
)

// secretRef is how tool parameters name a vault secret: "{{vault:NAME}}",
// anywhere inside a string value, at any depth.
var secretRef = regexp.MustCompile(`\{\{vault:([A-Za-z0-9_.-]{1,64})\}\}`)

// SecretRef returns the reference to the secret name, to put in tool
// parameters: "{{vault:" + name + "}}".
func SecretRef(name string) string { return "{{vault:" + name + "}}" }

// SecretNames returns the sorted names of the vault secrets params refer
// to ([SecretRef]), which an approval would let [Vault.Inject] put into the
// call. [Summary] lists them, so the human sees which secrets a call gets
// even when a long value is cut.
func SecretNames(params map[string]any) []string {
	names := map[string]bool{}
	collectRefs(params, names)
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Inject returns a copy of args with every secret reference replaced by
// the secret's value (ACP §2.3, §2.4 step 7a). It needs the Grant of the
// approved answer for this very call: g must come from [Asker.Ask], tool
// and args must be those the human approved (Answer.Args), and a Grant
// injects once. Without one it returns [ErrNoConsent]: plain allowed calls
// never get secrets. A reference to a missing secret is [ErrUnknownSecret];
// to a secret not bound to the approved tool and server ([Vault.Bind]),
// [ErrSecretNotAllowed].
//
// What the call returns must not carry the secrets back to the agent: scrub
// its result and any error with [Vault.Scrubber] of the same args before
// they leave.
//
// Before injecting, Inject emits one credential_injected event per secret,
// with its name only; an event error stops the injection ([ErrAudit]).
// The returned map holds secret values: hand it to the tool and never log
// it. args is not modified.
func (v *Vault) Inject(ctx context.Context, g *Grant, tool string, args map[string]any) (map[string]any, error) {
	if g == nil || g.argsHash == "" {
		return nil, fmt.Errorf("%w: no grant", ErrNoConsent)
	}
	h, err := ActionHash(args)
	if err != nil || h != g.argsHash || normalize.Name(tool) != g.tool {
		return nil, fmt.Errorf("%w: the grant of %s is for another tool or other arguments", ErrNoConsent, g.requestID)
	}
	if !g.used.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("%w: the grant of %s was already used", ErrNoConsent, g.requestID)
	}
	names := map[string]bool{}
	collectRefs(args, names)
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	v.mu.RLock()
	values := make(map[string]string, len(sorted))
	for _, n := range sorted {
		val, ok := v.secrets[n]
		if !ok {
			v.mu.RUnlock()
			return nil, fmt.Errorf("%w: %q", ErrUnknownSecret, n)
		}
		if !v.allowed(n, g.tool, g.server) {
			v.mu.RUnlock()
			return nil, fmt.Errorf("%w: %q is not bound to tool %q on server %q (Vault.Bind)", ErrSecretNotAllowed, n, clip(g.tool), clip(g.server))
		}
		values[n] = val
	}
	v.mu.RUnlock()
	for _, n := range sorted {
		e := Event{Type: EventCredentialInjected, Time: v.now(), RequestID: g.requestID, Tool: g.tool, Credential: n}
		if err := v.onEvent.emit(ctx, e); err != nil {
			return nil, fmt.Errorf("%w: credential_injected: %w", ErrAudit, err)
		}
	}
	out, _ := substitute(args, values).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// Scrubber returns a [Scrubber] for the secrets args refer to (the
// arguments as approved, before [Vault.Inject]): apply it to everything the
// call returns, result and error alike. Unknown names are skipped.
func (v *Vault) Scrubber(args map[string]any) *Scrubber {
	values := map[string]string{}
	v.mu.RLock()
	for _, n := range SecretNames(args) {
		if val, ok := v.secrets[n]; ok {
			values[n] = val
		}
	}
	v.mu.RUnlock()
	return NewScrubber(values)
}

// collectRefs adds the secret names referenced anywhere in v to names.
func collectRefs(v any, names map[string]bool) {
	switch x := v.(type) {
	case string:
		for _, m := range secretRef.FindAllStringSubmatch(x, -1) {
			names[m[1]] = true
		}
	case []any:
		for _, e := range x {
			collectRefs(e, names)
		}
	case map[string]any:
		for _, e := range x {
			collectRefs(e, names)
		}
	}
}

// substitute returns a deep copy of v with references replaced.
func substitute(v any, values map[string]string) any {
	switch x := v.(type) {
	case string:
		return secretRef.ReplaceAllStringFunc(x, func(ref string) string {
			return values[secretRef.FindStringSubmatch(ref)[1]]
		})
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, values)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, values)
		}
		return out
	}
	return v
}
