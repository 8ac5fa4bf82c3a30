package vault

import (
	"context"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/internal/secretref"
)

// SecretRef returns the reference to the secret name, to put in tool
// parameters: "{{vault:" + name + "}}", anywhere inside a string value, at
// any depth.
func SecretRef(name string) string { return secretref.Ref(name) }

// SecretNames returns the sorted names of the vault secrets params refer
// to ([SecretRef]), which an approval would let [Vault.Inject] put into the
// call. consent.Summary lists them, so the human sees which secrets a call
// gets even when a long value is cut.
func SecretNames(params map[string]any) []string { return secretref.Names(params) }

// Inject returns a copy of args with every secret reference replaced by
// the secret's value (ACP §2.3, §2.4 step 7a). It needs the Grant of the
// approved answer for this very call: g must come from [consent.Asker.Ask], tool
// and args must be those the human approved (Answer.Args), and a Grant
// injects once. Without one it returns [consent.ErrNoConsent]: plain allowed calls
// never get secrets. A reference to a missing secret is [ErrUnknownSecret];
// to a secret not bound to the approved tool and server ([Vault.Bind]),
// [ErrSecretNotAllowed]; to one shorter than [MinInjectLen],
// [ErrSecretTooShort].
//
// What the call returns must not carry the secrets back to the agent: scrub
// its result and any error before they leave, with the Scrubber
// [Vault.InjectScrubbed] returns (of the values injected, whatever Set
// does meanwhile).
//
// Before injecting, Inject emits one credential_injected event per secret,
// with its name only; an event error stops the injection ([consent.ErrAudit]).
// The returned map holds secret values: hand it to the tool and never log
// it. args is not modified.
func (v *Vault) Inject(ctx context.Context, g *consent.Grant, tool string, args map[string]any) (map[string]any, error) {
	out, _, err := v.InjectScrubbed(ctx, g, tool, args)
	return out, err
}

// MinInjectLen is the shortest secret [Vault.Inject] injects. Every value
// injected is scrubbed from everything the guard sends from then on
// ([Scrubber]), and a short one is everywhere: "ext" or "type" took the
// protocol's own member names and content types out of every result of
// every tool, which were all withheld as unreadable for the guard's
// lifetime, and "admin" or a 4-digit PIN is redacted from unrelated
// output. A short value is also found at once through the scrubbing's
// equality oracle (an echo of every candidate, in one call, shows which
// came back redacted). Values under this length are refused (fail closed),
// not scrubbed.
const MinInjectLen = 8

// InjectScrubbed is [Vault.Inject] that also returns the [Scrubber] of the
// very values it injected. [Vault.Scrubber] called after Inject reads the
// vault again: a secret rotated ([Vault.Set]) in between was injected with
// its old value and scrubbed with its new one, so the old value went back
// to the agent whole.
func (v *Vault) InjectScrubbed(ctx context.Context, g *consent.Grant, tool string, args map[string]any) (map[string]any, *Scrubber, error) {
	scope, err := g.Consume(tool, args)
	if err != nil {
		return nil, nil, err
	}
	sorted := secretref.Names(args)
	v.mu.RLock()
	values := make(map[string]string, len(sorted))
	for _, n := range sorted {
		val, ok := v.secrets[n]
		if !ok {
			v.mu.RUnlock()
			return nil, nil, fmt.Errorf("%w: %q", ErrUnknownSecret, n)
		}
		if !v.allowed(n, scope.Tool, scope.Server) {
			v.mu.RUnlock()
			return nil, nil, fmt.Errorf("%w: %q is not bound to tool %q on server %q (Vault.Bind)", ErrSecretNotAllowed, n, clip(scope.Tool), clip(scope.Server))
		}
		if len(val) < MinInjectLen {
			v.mu.RUnlock()
			return nil, nil, fmt.Errorf("%w: %q has %d bytes, under %d: store a longer, random value", ErrSecretTooShort, n, len(val), MinInjectLen)
		}
		values[n] = val
	}
	v.mu.RUnlock()
	for _, n := range sorted {
		e := consent.Event{Type: consent.EventCredentialInjected, Time: v.now(), RequestID: scope.RequestID, Tool: scope.Tool, Credential: n}
		if v.onEvent == nil {
			continue
		}
		if err := v.onEvent(ctx, e); err != nil {
			return nil, nil, fmt.Errorf("%w: credential_injected: %w", consent.ErrAudit, err)
		}
	}
	out, _ := secretref.Substitute(args, values).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, NewScrubber(values), nil
}

// Scrubber returns a [Scrubber] for the secrets args refer to (the
// arguments as approved, before [Vault.Inject]): apply it to everything the
// call returns, result and error alike. Unknown names are skipped.
func (v *Vault) Scrubber(args map[string]any) *Scrubber {
	values := map[string]string{}
	v.mu.RLock()
	for _, n := range secretref.Names(args) {
		if val, ok := v.secrets[n]; ok {
			values[n] = val
		}
	}
	v.mu.RUnlock()
	return NewScrubber(values)
}
