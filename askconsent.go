package gatehouse

import (
	"context"
	"time"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/consent/vault"
)

// AskConsent adapts a consent.Asker (ACP consent requests through a
// terminal, webhook or Telegram channel, each answer an Ed25519 proof that
// is verified before the call runs) to the guard's Asker.
//
// The human's modifications become Answer.Args, so the policy evaluates the
// modified call again. With a vault, secrets referenced in the approved
// arguments ({{vault:name}}) are injected for the handler only, after the
// approval and never for plain allowed calls; the audit log and the policy
// see the references, never the values.
func AskConsent(a *consent.Asker, v *vault.Vault) Asker {
	return consentAsker{a: a, vault: v}
}

type consentAsker struct {
	a     *consent.Asker
	vault *vault.Vault
}

func (c consentAsker) Ask(ctx context.Context, r AskRequest) (Answer, error) {
	req := consent.Request{
		Tool:   r.Tool,
		Server: r.Server,
		Args:   r.Args,
		Agent:  consent.Agent{ID: r.Agent, Name: r.Agent},
		Reason: r.Reason,
		Risk:   r.Risk,
		RuleID: r.ACPRule,
		Scopes: consentScopes(r.Scopes),
	}
	if note := defaultsNote(r.Defaulted); note != "" {
		req.Reason += " (" + note + ")"
	}
	if dl, ok := ctx.Deadline(); ok {
		req.Timeout = time.Until(dl)
	}
	ans, err := c.a.Ask(ctx, req)
	switch {
	case err != nil:
		return Answer{}, err
	case ans.Outcome == consent.OutcomeExpired:
		return Answer{}, context.DeadlineExceeded
	case !ans.Approved():
		return Answer{Reason: ans.Reason}, nil
	}
	out := Answer{Approved: true, Attestation: string(ans.Attestation), Scope: ans.Scope}
	if ans.Modified {
		out.Args = ans.Args
	}
	if c.vault != nil {
		// The scrubber of the values injected, not of the vault read again:
		// a secret rotated in between would be scrubbed by its new value.
		run, sc, err := c.vault.InjectScrubbed(ctx, ans.Grant, r.Tool, ans.Args)
		if err != nil {
			return Answer{}, err // fail closed: no call without its secrets, or with a refused grant
		}
		out.RunArgs = run
		out.Scrubber = sc
	}
	return out, nil
}

// vaultScrubber is the Scrubber of every value the vault could have
// injected (vault.ScrubberAll), or nil: the guard scrubs them from its
// first message (vaultscrub.go).
func (c consentAsker) vaultScrubber() *vault.Scrubber {
	if c.vault == nil {
		return nil
	}
	return c.vault.ScrubberAll()
}
