package gatehouse

import (
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/consent"
	"github.com/gatehouse-dev/gatehouse/grant"
	"github.com/gatehouse-dev/gatehouse/internal/runes"
)

// ScopeInputField is the property of AddTool's approval form in which the
// user picks how long to remember the approval, when the server offers
// scopes for the tool (Options.Grants): "once" or an offered scope's ID.
const ScopeInputField = "remember"

// rememberAnswer carries out the scope an Asker's approval chose: none,
// a grant, or a denial when the scope was not offered.
func (g *Guard) rememberAnswer(c *call, ans Answer) *refusal {
	s, ok, r := g.chooseScope(c, ans.Scope)
	if r != nil || !ok {
		return r
	}
	att := ans.Attestation
	if att == "" {
		att = "unattested"
	}
	g.remember(c, s, att)
	return nil
}

// withScopeField adds the scope choice to AddTool's approval form when
// scopes are offered for the tool: a string among "once" and their IDs,
// "once" by default, each scope's description in the field's description.
func (g *Guard) withScopeField(c *call, schema map[string]any) map[string]any {
	offered := g.offersShown(c)
	if len(offered) == 0 {
		return schema
	}
	ids := []string{grant.Once}
	desc := "How long to remember this approval: \"once\" (this call only)"
	for _, s := range offered {
		ids = append(ids, s.ID)
		desc += "; \"" + s.ID + "\" (" + s.Describe() + ")"
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		return schema
	}
	props[ScopeInputField] = map[string]any{"type": "string", "title": "Remember this approval", "description": desc, "enum": ids, "default": grant.Once}
	return schema
}

// elicitedScope reads the scope the user chose in AddTool's form: none
// ("once", or the field absent), an offered scope, or a denial for
// anything else (a scope the server does not offer, a value that is not a
// string).
func (g *Guard) elicitedScope(c *call, p *mcp.CallToolParamsRaw) (grant.Scope, bool, *refusal) {
	ans, _ := p.InputResponses[ApprovalInputID].(*mcp.ElicitResult)
	v, present := ans.Content[ScopeInputField]
	if !present {
		return grant.Scope{}, false, nil
	}
	id, ok := v.(string)
	if !ok {
		return g.chooseScope(c, "\x00not a string")
	}
	return g.chooseScope(c, id)
}

// consentScopes are the offered scopes as the consent package shows them.
func consentScopes(ss []grant.Scope) []consent.ScopeOption {
	var out []consent.ScopeOption
	for _, s := range ss {
		out = append(out, consent.ScopeOption{ID: s.ID, Title: s.Describe()})
	}
	return out
}

// offersShown are the scopes offered for c as the human reads them: each
// scope that takes the policy's patterns (Scope.Patterns) says, for this
// call, which arguments it frees and to which pattern, after its title.
// Before, the human read "with arguments the policy's patterns allow" or
// the server author's title, and approving deploy {"env":"staging"} for a
// day let {"env":"prod"} run unasked, a value never shown.
func (g *Guard) offersShown(c *call) []grant.Scope {
	offered := g.offers(c)
	if len(offered) == 0 {
		return offered
	}
	rule, _ := g.p.Rule(c.tool)
	var free []string
	for name := range c.args {
		if rule.Patterns[name] != "" {
			free = append(free, name)
		}
	}
	slices.Sort(free)
	out := make([]grant.Scope, len(offered))
	for i, s := range offered {
		out[i] = s
		if !s.Patterns {
			continue
		}
		if len(free) == 0 {
			out[i].Title = s.Describe() + " (for this call: exactly these arguments, as no argument of it has a pattern)"
			continue
		}
		parts := make([]string, len(free))
		for j, name := range free {
			parts[j] = runes.Escape(strconv.Quote(name)) + " any value matching " + runes.Escape(strconv.Quote(rule.Patterns[name]))
		}
		out[i].Title = s.Describe() + " (for this call: " + strings.Join(parts, ", ") + "; every other argument exactly as shown)"
	}
	return out
}
