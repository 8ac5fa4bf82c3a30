package consent

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gatehouse-dev/gatehouse/internal/prompt"
	"github.com/gatehouse-dev/gatehouse/internal/runes"
	"github.com/gatehouse-dev/gatehouse/internal/secretref"
)

// Summary returns the text channels show a human for req: tool, server,
// risk, category, agent, reason, the parameters, the names of the vault
// secrets the call would receive, and the expiry. Every piece is made safe
// to print: control, format (bidi, zero-width) and other invisible runes are
// shown as \u escapes, so an agent cannot hide or fake text in a terminal
// or a chat message. The parameters come from gatehouse's one prompt
// renderer (internal/prompt): canonical JSON, one argument per line, every
// argument name shown, long values cut one by one with the hidden byte
// count stated. When they cannot be shown that way, Summary says so; use
// [Prompt], which refuses instead ([Asker.Ask] does, and denies).
func Summary(req *ConsentRequest) string {
	s, err := Prompt(req)
	if err != nil {
		return summary(req, "  params:  (the parameters cannot be shown: deny)\n")
	}
	return s
}

// Prompt is [Summary] that fails, wrapping [ErrInvalidRequest], when the
// parameters cannot be shown with every argument name: a call that cannot
// be shown must not be asked about.
func Prompt(req *ConsentRequest) (string, error) {
	params, err := canonicalJSON(paramsOrEmpty(req.Action.Parameters), "parameters")
	if err != nil {
		return "", err
	}
	lines, err := prompt.Render(params, nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	return summary(req, "  params:\n"+indent(lines)), nil
}

// indent moves the renderer's lines under "params:".
func indent(lines string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(lines, "\n"), "\n", "\n  ") + "\n"
}

func summary(req *ConsentRequest, params string) string {
	var b strings.Builder
	a := req.Action
	fmt.Fprintf(&b, "Consent requested: %s\n", safe(req.ID))
	fmt.Fprintf(&b, "  tool:    %s", safe(a.Tool))
	if a.Server != "" {
		fmt.Fprintf(&b, " (server %s)", safe(a.Server))
	}
	fmt.Fprintf(&b, "\n  risk:    %s (%s)\n", safe(string(a.RiskLevel)), safe(string(a.Category)))
	agent := req.Agent.ID
	if req.Agent.Name != "" {
		agent = req.Agent.Name + " (" + req.Agent.ID + ")"
	}
	fmt.Fprintf(&b, "  agent:   %s\n", safe(agent))
	if a.Description != "" {
		fmt.Fprintf(&b, "  reason:  %s\n", safe(a.Description))
	}
	b.WriteString(params)
	if names := secretref.Names(a.Parameters); len(names) > 0 {
		fmt.Fprintf(&b, "  secrets: %s (injected by the vault if approved)\n", safe(strings.Join(names, ", ")))
	}
	fmt.Fprintf(&b, "  expires: %s\n", formatTime(req.ExpiresAt))
	return b.String()
}

func paramsOrEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// safe escapes every rune that is not a printable, visible character:
// internal/runes' one definition, shared with the argument renderer, which
// also counts runes that render as nothing though Unicode calls them
// printable (Hangul fillers, variation selectors, combining grapheme
// joiner; fault: an agent's self-declared name padded with U+3164 showed
// as blank space in the header, where the arguments would have escaped it).
func safe(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !validAt(s, i):
			b.WriteString(`\ufffd`)
		case !runes.Invisible(r):
			b.WriteRune(r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

func validAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return !(r == utf8.RuneError && n <= 1)
}
